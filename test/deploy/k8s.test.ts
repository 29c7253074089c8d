// biome-ignore-all lint/suspicious/noExplicitAny: rendered manifests are YAML walked by key; the schema test checks their shapes
/**
 * The Kubernetes manifests: every file and the rendered output of each kustomization validated
 * against the Kubernetes API schemas (and for unknown fields), the rendering compared with
 * kubectl's own kustomize, the security each pod needs (and no more), the PrometheusRule built
 * from deploy/prometheus/alerts.yaml and checked by promtool, and the configs valid for the CLI.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { tempDir } from '../helpers/temp.js';
import { schemaErrors, unknownFieldErrors } from './k8s-schema.js';
import { byKindAndName, kubectlKustomize, readManifests, renderKustomization, type Manifest } from './kustomize.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const BASE = path.join(REPO, 'k8s/base');
const REPORT_ONLY = path.join(REPO, 'k8s/overlays/report-only');
const REPORT_ONLY_HOSTPID = path.join(REPO, 'k8s/overlays/report-only-hostpid');
const CAPABILITIES = ['DAC_READ_SEARCH', 'DAC_OVERRIDE', 'SYS_PTRACE', 'SETUID', 'SETGID'];
const HOMES = ['/home', '/root', '/tmp', '/var/tmp'];

const base = renderKustomization(BASE);
const reportOnly = renderKustomization(REPORT_ONLY);
const reportOnlyHostPid = renderKustomization(REPORT_ONLY_HOSTPID);
const manifestFiles = readdirSync(BASE).filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml');

type Pod = Record<string, any>;
const find = (manifests: Manifest[], kind: string) => {
  const found = manifests.find((m) => m.kind === kind);
  if (!found) throw new Error(`no ${kind} rendered`);
  return found as Manifest & Record<string, any>;
};
const cronPod = (manifests: Manifest[]): Pod => find(manifests, 'CronJob').spec.jobTemplate.spec.template.spec;
const daemonPod = (manifests: Manifest[]): Pod => find(manifests, 'DaemonSet').spec.template.spec;
/** Each of HOMES: the pod's hostPath volume of it, and where and how its one container mounts that. */
const homeMounts = (pod: Pod) =>
  HOMES.map((home) => {
    const volume = pod.volumes.find((v: Pod) => v.hostPath?.path === home);
    const mount = volume && pod.containers[0].volumeMounts.find((m: Pod) => m.name === volume.name);
    return { home, mountPath: mount?.mountPath, readOnly: mount?.readOnly ?? false };
  });

describe('Kubernetes manifests against the API schemas', () => {
  const everything: Array<[string, Manifest]> = [
    ...manifestFiles.flatMap((file) =>
      readManifests(path.join(BASE, file)).map((m): [string, Manifest] => [`k8s/base/${file}`, m]),
    ),
    ...base.map((m): [string, Manifest] => [`kustomize k8s/base: ${m.kind}/${m.metadata.name}`, m]),
    ...reportOnly.map((m): [string, Manifest] => [
      `kustomize k8s/overlays/report-only: ${m.kind}/${m.metadata.name}`,
      m,
    ]),
    ...reportOnlyHostPid.map((m): [string, Manifest] => [
      `kustomize k8s/overlays/report-only-hostpid: ${m.kind}/${m.metadata.name}`,
      m,
    ]),
  ];

  it('every manifest file and every rendered object passes the schema validators', () => {
    expect(everything.length).toBeGreaterThanOrEqual(3 * 7 + 7);
    for (const [label, manifest] of everything) expect(schemaErrors(manifest), label).toEqual([]);
  });

  it('no manifest has a field its API type does not have', () => {
    const errors = unknownFieldErrors(everything, REPO);
    for (const [label, list] of errors) expect(list, label).toEqual([]);
  }, 60_000);

  it('the checks have teeth: a misspelt field, a wrong enum and a wrong type are each caught', () => {
    const cron = find(base, 'CronJob');
    const misspelt = structuredClone(cron);
    misspelt.spec.jobTemplate.spec.template.spec.hostPid = true;
    const badEnum = structuredClone(cron);
    badEnum.spec.concurrencyPolicy = 'Never';
    const badType = structuredClone(cron);
    badType.spec.startingDeadlineSeconds = '600';
    expect(schemaErrors(badEnum).join()).toMatch(/concurrencyPolicy/);
    expect(schemaErrors(badType).join()).toMatch(/startingDeadlineSeconds/);
    const unknown = unknownFieldErrors([['misspelt', misspelt]], REPO);
    expect(unknown.get('misspelt')?.join()).toMatch(/hostPid/);
  }, 60_000);
});

describe('kustomize rendering', () => {
  it('base: one of each resource, all in the agent-janitor namespace', () => {
    expect(base.map((m) => m.kind).sort()).toEqual([
      'ConfigMap',
      'CronJob',
      'DaemonSet',
      'Namespace',
      'PodMonitor',
      'PrometheusRule',
      'ServiceAccount',
    ]);
    for (const manifest of base.filter((m) => m.kind !== 'Namespace'))
      expect(manifest.metadata.namespace, manifest.kind).toBe('agent-janitor');
    expect(find(base, 'Namespace').metadata.name).toBe('agent-janitor');
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!kubectl).each([
    ['k8s/base', BASE],
    ['k8s/overlays/report-only', REPORT_ONLY],
    ['k8s/overlays/report-only-hostpid', REPORT_ONLY_HOSTPID],
  ])('%s renders exactly as kubectl kustomize renders it', (_label, dir) => {
    const theirs = kubectlKustomize(dir) as Manifest[];
    expect(byKindAndName(renderKustomization(dir))).toEqual(byKindAndName(theirs));
  });
});

describe('the pods that delete (k8s/base)', () => {
  it.each([
    ['CronJob', cronPod],
    ['DaemonSet', daemonPod],
  ])('%s: hostPID, root with only the five capabilities, read-only root, RuntimeDefault seccomp', (_kind, podOf) => {
    const pod = podOf(base);
    expect(pod.hostPID).toBe(true);
    expect(pod.securityContext).toMatchObject({
      runAsUser: 0,
      runAsNonRoot: false,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.serviceAccountName).toBe('agent-janitor');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.containers).toHaveLength(1);
    const [container] = pod.containers;
    expect(container.securityContext.capabilities.drop).toEqual(['ALL']);
    expect([...container.securityContext.capabilities.add].sort()).toEqual([...CAPABILITIES].sort());
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
    });
    expect(container.resources.requests).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();
  });

  it.each([
    ['CronJob', cronPod],
    ['DaemonSet', daemonPod],
  ])('%s: the homes mounted by hostPath at the same paths, writable; the config from the ConfigMap', (_kind, podOf) => {
    const pod = podOf(base);
    const [container] = pod.containers;
    expect(homeMounts(pod)).toEqual(HOMES.map((home) => ({ home, mountPath: home, readOnly: false })));
    const configVolume = pod.volumes.find((v: Pod) => v.configMap);
    expect(configVolume.configMap.name).toBe(find(base, 'ConfigMap').metadata.name);
    const configMount = container.volumeMounts.find((m: Pod) => m.name === configVolume.name);
    const configArg = container.args[container.args.indexOf('--config') + 1] as string;
    expect(path.dirname(configArg)).toBe(configMount.mountPath);
    expect(Object.keys(find(base, 'ConfigMap').data)).toContain(path.basename(configArg));
  });

  it('CronJob: Forbid, deadlines, history limits, one pass an hour', () => {
    const { spec } = find(base, 'CronJob');
    expect(spec.concurrencyPolicy).toBe('Forbid');
    expect(spec.startingDeadlineSeconds).toBeGreaterThan(0);
    expect(spec.successfulJobsHistoryLimit).toBeGreaterThan(0);
    expect(spec.failedJobsHistoryLimit).toBeGreaterThan(0);
    expect(spec.jobTemplate.spec.activeDeadlineSeconds).toBeLessThan(3600);
    expect(cronPod(base).containers[0].args.slice(0, 1)).toEqual(['run']);
  });

  it('DaemonSet: serve on port 9464 with probes on /healthz, scraped by the PodMonitor', () => {
    const pod = daemonPod(base);
    const [container] = pod.containers;
    expect(container.args.slice(0, 1)).toEqual(['serve']);
    expect(container.args[container.args.indexOf('--listen') + 1]).toBe('0.0.0.0:9464');
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.livenessProbe.httpGet.port).toBe('metrics');
    const monitor = find(base, 'PodMonitor');
    const labels = find(base, 'DaemonSet').spec.template.metadata.labels;
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(labels[key], key).toBe(value);
    expect(monitor.spec.podMetricsEndpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
  });

  it('the Namespace admits these pods (privileged Pod Security level)', () => {
    const labels = find(base, 'Namespace').metadata.labels as Record<string, string>;
    expect(labels['pod-security.kubernetes.io/enforce']).toBe('privileged');
  });
});

describe('the report-only overlay', () => {
  it.each([
    ['CronJob', cronPod],
    ['DaemonSet', daemonPod],
  ])('%s: no hostPID, non-root, no capability, homes read-only, --report-only', (_kind, podOf) => {
    const pod = podOf(reportOnly);
    expect(pod.hostPID ?? false).toBe(false);
    expect(pod.hostNetwork ?? false).toBe(false);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [container] = pod.containers;
    expect(container.args).toContain('--report-only');
    expect(container.securityContext.capabilities).toEqual({ drop: ['ALL'] });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(homeMounts(pod)).toEqual(HOMES.map((home) => ({ home, mountPath: home, readOnly: true })));
    // Its report folder (and run lock) is its own, not the node's.
    expect(pod.volumes.find((v: Pod) => v.name === 'state')).toEqual({ name: 'state', emptyDir: {} });
  });
});

describe('the report-only overlay that sees the host (k8s/overlays/report-only-hostpid)', () => {
  it.each([
    ['CronJob', cronPod],
    ['DaemonSet', daemonPod],
  ])('%s: the deleting pod, hostPID, user and capabilities included, but --report-only', (_kind, podOf) => {
    const pod = podOf(reportOnlyHostPid);
    const deleting = podOf(base);
    expect(pod.hostPID).toBe(true);
    expect(pod.hostNetwork).toEqual(deleting.hostNetwork);
    expect(pod.securityContext).toEqual(deleting.securityContext);
    const [container] = pod.containers;
    const [deletingContainer] = deleting.containers;
    expect(container.securityContext).toEqual(deletingContainer.securityContext);
    expect([...container.securityContext.capabilities.add].sort()).toEqual([...CAPABILITIES].sort());
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(container.args).toEqual([deletingContainer.args[0], '--report-only', ...deletingContainer.args.slice(1)]);
  });

  it.each([
    ['CronJob', cronPod],
    ['DaemonSet', daemonPod],
  ])('%s: the homes read-only at the same paths; reports on the node, apart from the deleting ones', (_kind, podOf) => {
    const pod = podOf(reportOnlyHostPid);
    const deleting = podOf(base);
    expect(homeMounts(pod)).toEqual(HOMES.map((home) => ({ home, mountPath: home, readOnly: true })));
    const [container] = pod.containers;
    // Every mount but the report folder is read-only, and every volume but that folder is the deleting pod's.
    const writable = container.volumeMounts.filter((m: Pod) => m.readOnly !== true).map((m: Pod) => m.name);
    expect(writable).toEqual(['state']);
    const state = pod.volumes.find((v: Pod) => v.name === 'state');
    const deletingState = deleting.volumes.find((v: Pod) => v.name === 'state');
    expect(state.hostPath).toEqual({ path: '/var/lib/agent-janitor-report-only', type: 'DirectoryOrCreate' });
    expect(state.hostPath.path).not.toBe(deletingState.hostPath.path);
    expect(pod.volumes.filter((v: Pod) => v.name !== 'state')).toEqual(
      deleting.volumes.filter((v: Pod) => v.name !== 'state'),
    );
    const mountPaths = (c: Pod) => c.volumeMounts.map((m: Pod) => [m.name, m.mountPath]);
    expect(mountPaths(container)).toEqual(mountPaths(deleting.containers[0]));
  });
});

describe('configs and the PrometheusRule', () => {
  const configs = (manifests: Manifest[]) =>
    Object.entries(find(manifests, 'ConfigMap').data as Record<string, string>);

  it.each([
    ['k8s/base', base],
    ['k8s/overlays/report-only', reportOnly],
    ['k8s/overlays/report-only-hostpid', reportOnlyHostPid],
  ])('%s: every config in the ConfigMap is valid for `agent-janitor config`', (_label, manifests) => {
    const dir = tempDir();
    for (const [key, text] of configs(manifests)) {
      const file = path.join(dir, key);
      writeFileSync(file, text);
      const result = spawnSync(process.execPath, [CLI, 'config', '--config', file], { encoding: 'utf8' });
      expect(result.status, `${key}: ${result.stderr}`).toBe(0);
      const effective = parse(result.stdout) as Record<string, any>;
      expect(effective.homes, key).toEqual(['/home/*', '/root']);
      expect(effective.processCheck, key).toBe('required');
    }
    const cron = parse(find(manifests, 'ConfigMap').data['cronjob.yaml']) as Record<string, any>;
    if (manifests === base) expect(cron.metrics.pushgateway.url).toMatch(/^http:\/\/pushgateway\./);
    const daemon = parse(find(manifests, 'ConfigMap').data['daemonset.yaml']) as Record<string, any>;
    expect(daemon.metrics?.pushgateway, 'the scraped DaemonSet does not also push').toBeUndefined();
  });

  it('the PrometheusRule is generated from deploy/prometheus/alerts.yaml and up to date', async () => {
    const generator = (await import(path.join(REPO, 'k8s/generate-prometheusrule.mjs'))) as {
      prometheusRuleYaml(text: string): string;
    };
    const alerts = readFileSync(path.join(REPO, 'deploy/prometheus/alerts.yaml'), 'utf8');
    expect(
      readFileSync(path.join(BASE, 'prometheusrule.yaml'), 'utf8'),
      'run `node k8s/generate-prometheusrule.mjs`',
    ).toBe(generator.prometheusRuleYaml(alerts));
    expect(find(base, 'PrometheusRule').spec.groups).toEqual((parse(alerts) as { groups: unknown }).groups);
  });

  it('promtool accepts the rule file and the rules the PrometheusRule carries', () => {
    const dir = tempDir();
    const carried = path.join(dir, 'from-prometheusrule.yaml');
    writeFileSync(carried, stringify({ groups: find(base, 'PrometheusRule').spec.groups }));
    for (const file of [path.join(REPO, 'deploy/prometheus/alerts.yaml'), carried]) {
      const result = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
      expect(result.error, 'promtool (Debian package prometheus) must be installed').toBeUndefined();
      expect(result.status, `${file}: ${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/SUCCESS: \d+ rules found/);
    }
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, stringify({ groups: [{ name: 'x', rules: [{ alert: 'Broken', expr: 'sum(' }] }] }));
    expect(spawnSync('promtool', ['check', 'rules', broken], { encoding: 'utf8' }).status).not.toBe(0);
  });
});
