/**
 * Validates manifests against the Kubernetes API schemas twice over: the `kubernetes-models`
 * validators (JSON schemas generated from the API's OpenAPI: types, enums, required fields), and
 * TypeScript's excess-property check against the same models' types, which rejects a field the
 * API does not have (a misspelt `hostPid` would otherwise pass as an unknown extra field).
 * kubernetes-models 4 (the API of Kubernetes 1.33) and its prometheus-operator models 4: their
 * next majors need Node.js 22, and the project runs on 20 (test/docs/node-version.test.ts).
 */
import path from 'node:path';
import ts from 'typescript';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { Manifest } from './kustomize.js';

interface ModelClass {
  new (data: never): { validate(): void };
}

/** apiVersion/kind → the model class and the module of its TypeScript interface. */
const MODELS: Record<string, { model: ModelClass; module: string; type: string }> = {
  'v1/ConfigMap': {
    model: ConfigMap as unknown as ModelClass,
    module: 'kubernetes-models/v1/ConfigMap',
    type: 'IConfigMap',
  },
  'v1/Namespace': {
    model: Namespace as unknown as ModelClass,
    module: 'kubernetes-models/v1/Namespace',
    type: 'INamespace',
  },
  'v1/ServiceAccount': {
    model: ServiceAccount as unknown as ModelClass,
    module: 'kubernetes-models/v1/ServiceAccount',
    type: 'IServiceAccount',
  },
  'batch/v1/CronJob': {
    model: CronJob as unknown as ModelClass,
    module: 'kubernetes-models/batch/v1/CronJob',
    type: 'ICronJob',
  },
  'apps/v1/DaemonSet': {
    model: DaemonSet as unknown as ModelClass,
    module: 'kubernetes-models/apps/v1/DaemonSet',
    type: 'IDaemonSet',
  },
  'monitoring.coreos.com/v1/PodMonitor': {
    model: PodMonitor as unknown as ModelClass,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor',
    type: 'IPodMonitor',
  },
  'monitoring.coreos.com/v1/PrometheusRule': {
    model: PrometheusRule as unknown as ModelClass,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    type: 'IPrometheusRule',
  },
};

function modelOf(manifest: Manifest) {
  const entry = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!entry) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind} (${manifest.metadata?.name})`);
  return entry;
}

/** The schema errors of one manifest (empty when it is valid). */
export function schemaErrors(manifest: Manifest): string[] {
  try {
    new (modelOf(manifest).model)(structuredClone(manifest) as never).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * The fields of each manifest that its API type does not have, as TypeScript diagnostics, keyed
 * by the label given. All manifests are checked in one program (one compile is the slow part).
 */
export function unknownFieldErrors(labelled: ReadonlyArray<[string, Manifest]>, repo: string): Map<string, string[]> {
  const files = new Map<string, string>();
  labelled.forEach(([, manifest], index) => {
    const { module, type } = modelOf(manifest);
    files.set(
      path.join(repo, 'test/deploy', `__manifest_${index}.ts`),
      `import type { ${type} } from ${JSON.stringify(module)};\nexport const manifest: ${type} = ${JSON.stringify(manifest, null, 1)};\n`,
    );
  });
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.getSourceFile = (name, version, onError) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile(name, version, onError) : ts.createSourceFile(name, text, version);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const out = new Map<string, string[]>(labelled.map(([label]) => [label, []]));
  const names = [...files.keys()];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const index = diagnostic.file ? names.indexOf(diagnostic.file.fileName) : -1;
    const label = index === -1 ? '(program)' : (labelled[index] as [string, Manifest])[0];
    const list = out.get(label) ?? [];
    list.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    out.set(label, list);
  }
  return out;
}
