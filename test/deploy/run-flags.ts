/**
 * What a `podman run` / `docker run` command line says about who a container runs as, in the
 * terms a Kubernetes pod says it: so that a test can hold the manifests to the flags the image is
 * tested with (scripts/image-flags.sh). A flag this reader does not know is an error, so that a
 * flag added to the script cannot go unmatched in the manifests.
 */
import { spawnSync } from 'node:child_process';

export interface PodIdentity {
  runAsUser: number;
  runAsGroup: number;
  hostPID: boolean;
  capabilities: { drop: string[]; add: string[] };
  readOnlyRootFilesystem: boolean;
  allowPrivilegeEscalation: boolean;
  appArmorUnconfined: boolean;
}

/** The bash arrays `names` that `file` defines, read by bash itself. */
export function bashArrays(file: string, names: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of names) {
    const result = spawnSync('bash', ['-c', `set -eu; . "$1"; printf '%s\\0' "\${${name}[@]}"`, 'bash', file], {
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`${file}: cannot read the array ${name}: ${result.stderr.trim()}`);
    out[name] = result.stdout.split('\0').slice(0, -1);
  }
  return out;
}

/** `imageUser` is the image's USER (uid:gid), which applies where the flags name no --user. */
export function podIdentity(flags: readonly string[], imageUser: string): PodIdentity {
  const identity: PodIdentity = {
    ...userOf(imageUser),
    hostPID: false,
    capabilities: { drop: [], add: [] },
    readOnlyRootFilesystem: false,
    allowPrivilegeEscalation: true,
    appArmorUnconfined: false,
  };
  for (let i = 0; i < flags.length; i += 1) {
    const flag = flags[i] as string;
    const value = (): string => {
      const next = flags[i + 1];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      i += 1;
      return next;
    };
    if (flag === '--user') Object.assign(identity, userOf(value()));
    else if (flag === '--pid=host') identity.hostPID = true;
    else if (flag === '--read-only') identity.readOnlyRootFilesystem = true;
    else if (flag.startsWith('--cap-drop=')) identity.capabilities.drop.push(flag.slice('--cap-drop='.length));
    else if (flag.startsWith('--cap-add=')) identity.capabilities.add.push(flag.slice('--cap-add='.length));
    else if (flag === '--security-opt') {
      const option = value();
      if (option === 'no-new-privileges') identity.allowPrivilegeEscalation = false;
      else if (option === 'apparmor=unconfined') identity.appArmorUnconfined = true;
      else throw new Error(`--security-opt ${option} has no pod equivalent known here`);
    } else throw new Error(`${flag} has no pod equivalent known here`);
  }
  return identity;
}

function userOf(spec: string): { runAsUser: number; runAsGroup: number } {
  const match = /^(\d+):(\d+)$/.exec(spec);
  if (!match) throw new Error(`a user must be given as uid:gid, not ${JSON.stringify(spec)}`);
  return { runAsUser: Number(match[1]), runAsGroup: Number(match[2]) };
}

// biome-ignore lint/suspicious/noExplicitAny: a rendered pod spec is YAML walked by key
type PodSpec = Record<string, any>;

/** The same fields, read from a pod spec with one container. */
export function podSpecIdentity(pod: PodSpec): PodIdentity {
  const [container] = pod.containers as PodSpec[];
  const security = (container?.securityContext ?? {}) as PodSpec;
  return {
    runAsUser: security.runAsUser ?? pod.securityContext?.runAsUser,
    runAsGroup: security.runAsGroup ?? pod.securityContext?.runAsGroup,
    hostPID: pod.hostPID ?? false,
    capabilities: { drop: security.capabilities?.drop ?? [], add: security.capabilities?.add ?? [] },
    readOnlyRootFilesystem: security.readOnlyRootFilesystem ?? false,
    allowPrivilegeEscalation: security.allowPrivilegeEscalation ?? true,
    appArmorUnconfined: (security.appArmorProfile ?? pod.securityContext?.appArmorProfile)?.type === 'Unconfined',
  };
}
