/**
 * Renders a kustomization the way `kustomize build` does for the features this project's use:
 * `resources` (files and other kustomizations), `namespace`, and `patches` given as RFC 6902 JSON
 * patches with a target. Anything else in a kustomization.yaml is refused, so the renderer can
 * never silently differ from kustomize. Where kubectl is installed its own kustomize is compared.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
};

interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}
interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const KNOWN_KEYS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'patches']);
/** Kinds without a namespace (the ones the manifests here use). */
const CLUSTER_SCOPED = new Set(['Namespace']);

export function readManifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((value): value is Manifest => value !== null);
}

export function renderKustomization(dir: string): Manifest[] {
  const file = path.join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const key of Object.keys(kustomization)) {
    if (!KNOWN_KEYS.has(key)) throw new Error(`${file}: ${key} is not rendered by this test's kustomize`);
  }
  if (kustomization.kind !== 'Kustomization') throw new Error(`${file}: kind must be Kustomization`);
  let out: Manifest[] = [];
  for (const resource of (kustomization.resources as string[] | undefined) ?? []) {
    const full = path.resolve(dir, resource);
    out.push(...(lstatSync(full).isDirectory() ? renderKustomization(full) : readManifests(full)));
  }
  for (const patch of (kustomization.patches as Array<{ path: string; target: Target }> | undefined) ?? []) {
    const ops = parse(readFileSync(path.join(dir, patch.path), 'utf8')) as JsonPatchOp[];
    if (!Array.isArray(ops))
      throw new Error(`${patch.path}: only JSON patches (a list of operations) are rendered here`);
    const matches = out.filter((manifest) => targets(patch.target, manifest));
    if (matches.length === 0) throw new Error(`${patch.path}: its target matches no resource`);
    out = out.map((manifest) => (matches.includes(manifest) ? applyJsonPatch(manifest, ops) : manifest));
  }
  const namespace = kustomization.namespace as string | undefined;
  if (namespace) {
    out = out.map((manifest) =>
      CLUSTER_SCOPED.has(manifest.kind) ? manifest : { ...manifest, metadata: { ...manifest.metadata, namespace } },
    );
  }
  return out;
}

function targets(target: Target, manifest: Manifest): boolean {
  const [group, version] = manifest.apiVersion.includes('/')
    ? manifest.apiVersion.split('/')
    : ['', manifest.apiVersion];
  return (
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version) &&
    (target.kind === undefined || target.kind === manifest.kind) &&
    (target.name === undefined || target.name === manifest.metadata.name)
  );
}

/** RFC 6902 add, remove and replace; a path that does not exist is an error, as in kustomize. */
function applyJsonPatch<T>(document: T, ops: readonly JsonPatchOp[]): T {
  const copy = structuredClone(document) as unknown;
  for (const op of ops) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop();
    if (last === undefined) throw new Error(`${op.op} ${op.path}: the whole document cannot be patched here`);
    let parent = copy as Record<string, unknown> | unknown[];
    for (const part of parts) {
      const next = (parent as Record<string, unknown>)[part];
      if (typeof next !== 'object' || next === null) throw new Error(`${op.op} ${op.path}: ${part} does not exist`);
      parent = next as Record<string, unknown>;
    }
    const exists = Array.isArray(parent) ? Number(last) < parent.length : Object.hasOwn(parent, last);
    if (op.op !== 'add' && !exists) throw new Error(`${op.op} ${op.path}: nothing there`);
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op === 'remove') parent.splice(index, 1);
      else if (op.op === 'replace') parent[index] = op.value;
      else parent.splice(index, 0, op.value);
    } else if (op.op === 'remove') delete parent[last];
    else parent[last] = op.value;
  }
  return copy as T;
}

/** `kubectl kustomize DIR` (kustomize built into kubectl), or null where kubectl is not installed. */
export function kubectlKustomize(dir: string): Manifest[] | null {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Manifest);
}

/** Sorted by kind and name, so two renderings compare as sets. */
export function byKindAndName(manifests: readonly Manifest[]): Manifest[] {
  const key = (m: Manifest) => `${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;
  return [...manifests].sort((a, b) => key(a).localeCompare(key(b)));
}
