/**
 * The Kubernetes pods run the image as scripts/image-test.sh runs it: the deleting pods
 * (k8s/base) with the flags of its deleting passes (root, the five capabilities, the host's PID
 * namespace), the report-only overlay with those of its report-only pass (the image's own user,
 * no capability, no host PID namespace), the report-only overlay that sees the host with those of
 * the deleting passes; and so do the `docker run` commands of docs/operations.md.
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
  'image_host_ids',
]) as Record<'image_report_only' | 'image_root' | 'image_host_pid' | 'image_host_ids', string[]>;
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
const reportOnlyHostPid = podsOf(renderKustomization(path.join(REPO, 'k8s/overlays/report-only-hostpid')));

describe('the Kubernetes pods run the image as scripts/image-test.sh does', () => {
  it('the image runs as uid 10001 where no user is given', () => {
    expect(imageUser).toBe('10001:10001');
  });

  it.each(base)('k8s/base %s: root, the five capabilities, the host PID namespace', (_kind, pod) => {
    const tested = podIdentity([...flags.image_root, ...flags.image_host_pid], imageUser);
    expect(tested).toMatchObject({ runAsUser: 0, hostPID: true });
    expect(podSpecIdentity(pod)).toEqual(tested);
  });

  it.each(reportOnlyHostPid)(
    'k8s/overlays/report-only-hostpid %s: as the deleting pods, root, the five capabilities, the host PID namespace',
    (_kind, pod) => {
      expect(podSpecIdentity(pod)).toEqual(podIdentity([...flags.image_root, ...flags.image_host_pid], imageUser));
    },
  );

  it.each(reportOnly)(
    'k8s/overlays/report-only %s: the image user, no capability, its own PID namespace',
    (_kind, pod) => {
      const tested = podIdentity(flags.image_report_only, imageUser);
      expect(tested).toMatchObject({ runAsUser: 10001, hostPID: false, capabilities: { add: [] } });
      expect(podSpecIdentity(pod)).toEqual(tested);
      expect(pod.securityContext.runAsNonRoot).toBe(true);
    },
  );

  it('the docs run the image with the same flags: report-only as the image user, deleting as root', () => {
    const commands = dockerRuns(readFileSync(path.join(REPO, 'docs/operations.md'), 'utf8'));
    const identities = commands.map((command) => podIdentity(securityFlags(command), imageUser));
    const reportOnlyRun = podIdentity(flags.image_report_only, imageUser);
    const deletingRun = podIdentity([...flags.image_root, ...flags.image_host_pid], imageUser);
    expect(commands.filter((c) => c.includes('--report-only'))).toHaveLength(1);
    commands.forEach((command, i) => {
      expect(identities[i], command.join(' ')).toEqual(command.includes('--report-only') ? reportOnlyRun : deletingRun);
    });
    expect(commands.filter((c) => !c.includes('--report-only')).length).toBeGreaterThanOrEqual(2);
  });

  it.each(base)("k8s/base %s: the host's machine id, read-only, as the tested deleting runs mount it", (_kind, pod) => {
    expect(flags.image_host_ids).toEqual(['-v', '/etc/machine-id:/etc/machine-id:ro']);
    const mount = pod.containers[0].volumeMounts.find((m: Pod) => m.mountPath === '/etc/machine-id');
    expect(mount).toMatchObject({ readOnly: true });
    const volume = pod.volumes.find((v: Pod) => v.name === mount.name);
    expect(volume.hostPath).toEqual({ path: '/etc/machine-id', type: 'File' });
  });

  it("the docs' deleting runs mount the host's machine id as the tested ones do", () => {
    const deleting = dockerRuns(readFileSync(path.join(REPO, 'docs/operations.md'), 'utf8')).filter(
      (command) => !command.includes('--report-only'),
    );
    expect(deleting.length).toBeGreaterThanOrEqual(2);
    for (const command of deleting) expect(command.join(' ')).toContain(flags.image_host_ids.join(' '));
  });

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

/** The `docker run` command lines of the Markdown's "Container image" section, as words. */
function dockerRuns(markdown: string): string[][] {
  const start = markdown.indexOf('\n## Container image');
  const end = markdown.indexOf('\n## ', start + 1);
  if (start === -1) throw new Error('docs/operations.md has no "Container image" section');
  const section = markdown.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] as string).replace(/\\\n/g, ' '));
  return blocks
    .flatMap((block) => block.split('\n'))
    .filter((line) => /^docker run\b/.test(line.trim()))
    .map((line) => line.trim().split(/\s+/));
}

/** The words of a command line that say who the container runs as (podIdentity's flags). */
function securityFlags(words: readonly string[]): string[] {
  const out: string[] = [];
  words.forEach((word, i) => {
    if (word === '--user' || word === '--security-opt') out.push(word, words[i + 1] as string);
    else if (word === '--pid=host' || word === '--read-only' || /^--cap-(add|drop)=/.test(word)) out.push(word);
    else if (/^--(user|pid|security-opt|cap-add|cap-drop|privileged)\b/.test(word))
      throw new Error(`write ${word} as scripts/image-flags.sh writes it`);
  });
  return out;
}
