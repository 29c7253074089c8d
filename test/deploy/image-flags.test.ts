/**
 * The Kubernetes pods run the image as scripts/image-test.sh runs it, and the README tells users
 * to: the deleting pods (k8s/base) with the flags of its deleting passes (root, the five
 * capabilities, the host's PID namespace), the report-only overlay with those of its report-only
 * pass (the image's own user, no capability, no host PID namespace).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDockerfile } from './dockerfile.js';
import { renderKustomization, type Manifest } from './kustomize.js';
import { bashArrays, podIdentity, podSpecIdentity } from './run-flags.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const flags = bashArrays(path.join(REPO, 'scripts/image-flags.sh'), [
  'image_report_only',
  'image_root',
  'image_host_pid',
]) as Record<'image_report_only' | 'image_root' | 'image_host_pid', string[]>;
const dockerfile = parseDockerfile(readFileSync(path.join(REPO, 'Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1);
const imageUser = runtime?.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args ?? '0:0';

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are YAML walked by key
type Pod = Record<string, any>;
const podsOf = (manifests: Manifest[]): Array<[string, Pod]> => {
  const cron = manifests.find((m) => m.kind === 'CronJob') as Pod | undefined;
  const daemon = manifests.find((m) => m.kind === 'DaemonSet') as Pod | undefined;
  if (!cron || !daemon) throw new Error('a CronJob and a DaemonSet must be rendered');
  return [
    ['CronJob', cron.spec.jobTemplate.spec.template.spec],
    ['DaemonSet', daemon.spec.template.spec],
  ];
};
const base = podsOf(renderKustomization(path.join(REPO, 'k8s/base')));
const reportOnly = podsOf(renderKustomization(path.join(REPO, 'k8s/overlays/report-only')));

describe('the Kubernetes pods run the image as scripts/image-test.sh does', () => {
  it('the image runs as uid 10001 where no user is given', () => {
    expect(imageUser).toBe('10001:10001');
  });

  it.each(base)('k8s/base %s: root, the five capabilities, the host PID namespace', (_kind, pod) => {
    const tested = podIdentity([...flags.image_root, ...flags.image_host_pid], imageUser);
    expect(tested).toMatchObject({ runAsUser: 0, hostPID: true });
    expect(podSpecIdentity(pod)).toEqual(tested);
  });

  it.each(reportOnly)(
    'k8s/overlays/report-only %s: the image user, no capability, its own PID namespace',
    (_kind, pod) => {
      const tested = podIdentity(flags.image_report_only, imageUser);
      expect(tested).toMatchObject({ runAsUser: 10001, hostPID: false, capabilities: { add: [] } });
      expect(podSpecIdentity(pod)).toEqual(tested);
      expect(pod.securityContext.runAsNonRoot).toBe(true);
    },
  );

  it('a pod that differs in user, a capability or hostPID does not match', () => {
    const [, pod] = base[0] as [string, Pod];
    const tested = podIdentity([...flags.image_root, ...flags.image_host_pid], imageUser);
    const withoutHostPid = structuredClone(pod);
    delete withoutHostPid.hostPID;
    const moreCapabilities = structuredClone(pod);
    moreCapabilities.containers[0].securityContext.capabilities.add.push('FOWNER');
    const otherUser = structuredClone(pod);
    otherUser.securityContext.runAsUser = 65532;
    for (const changed of [withoutHostPid, moreCapabilities, otherUser])
      expect(podSpecIdentity(changed)).not.toEqual(tested);
    expect(() => podIdentity(['--privileged'], imageUser)).toThrow(/--privileged has no pod equivalent/);
  });
});
