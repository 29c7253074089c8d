import { describe, expect, it } from 'vitest';
import { chainTo, importGraph, layerOf, type ImportGraph } from './imports.js';

/**
 * The layers of src/, one way only, type imports counted. commands/ (and cli.ts, serve/) call the
 * one function that runs a pass (reconcile/), which writes its report and delivers its metrics.
 * pass/ runs a pass and answers its report; it writes no output. outputs/ renders and exports what
 * it is given. A judge turns evidence into verdicts and must stay pure: nothing it loads may start
 * git, touch the disk or read the config. Every import is read with TypeScript's own parser.
 */
const graph: ImportGraph = importGraph();

/** The modules that write or send a pass's results: core may not call them, the caller does. */
const isOutputWriter = (file: string) =>
  file.startsWith('outputs/') && [...graph.closure(file), file].some((each) => touchesDisk(each) || isNetwork(each));
const touchesDisk = (file: string) => file === 'node:fs' || file === 'node:fs/promises' || file === 'better-sqlite3';
const isNetwork = (file: string) => file === 'node:http' || file === 'node:net' || file === 'prom-client';
const startsProcesses = (file: string) => file === 'node:child_process' || file.startsWith('git/');
const isPassRunner = (file: string) => file === 'pass/pass.ts' || file === 'pass/executor.ts';

function violations(rule: (from: string, to: string) => boolean, withTypes = true): string[] {
  return graph.edges
    .filter((edge) => (withTypes || !edge.typeOnly) && rule(edge.from, edge.to))
    .map((edge) => `${edge.from} imports ${edge.to}`);
}

describe('the layers of src/', () => {
  it('outputs/ only renders and exports: it imports no command and does not run a pass', () => {
    expect(
      violations((from, to) => from.startsWith('outputs/') && (layerOf(to) === 'commands' || isPassRunner(to))),
    ).toEqual([]);
  });

  it('pass/ writes no output and knows no command: its caller writes the report', () => {
    expect(
      violations(
        (from, to) =>
          from.startsWith('pass/') && (layerOf(to) === 'commands' || layerOf(to) === 'serve' || isOutputWriter(to)),
      ),
    ).toEqual([]);
  });

  it('no judge loads anything that starts git, touches the disk or reads the config', () => {
    const judges = graph.files.filter((file) => file.endsWith('/judge.ts'));
    expect(judges.length).toBeGreaterThanOrEqual(7);
    // The pieces of a config section (zod schemas, a provider's accessor of its section) are pure;
    // reading and checking the file is not.
    const readsConfig = (file: string) => file === 'config/load.ts' || file === 'config/schema.ts';
    const impure = (file: string) => startsProcesses(file) || touchesDisk(file) || readsConfig(file);
    const found = judges
      .map((judge) => chainTo(graph, judge, impure))
      .filter((chain): chain is string[] => chain !== null)
      .map((chain) => chain.join(' -> '));
    expect(found).toEqual([]);
  });

  it("a provider's demo sandbox does not load the registry of every provider (src/providers/registry.ts)", () => {
    const demos = graph.files.filter((file) => /^providers\/[^/]+\/demo\.ts$/.test(file));
    expect(demos.length).toBeGreaterThanOrEqual(6);
    const found = demos
      .map((demo) => chainTo(graph, demo, (file) => file === 'providers/registry.ts'))
      .filter((chain): chain is string[] => chain !== null)
      .map((chain) => chain.join(' -> '));
    expect(found).toEqual([]);
  });

  it('only src/safety/fs/ imports node:fs: every file-system call of the tool is in one folder', () => {
    const importers = graph.edges
      .filter((edge) => edge.to === 'node:fs' || edge.to === 'node:fs/promises')
      .map((edge) => edge.from)
      .filter((file) => !file.startsWith('safety/fs/'));
    expect(graph.edges.some((edge) => edge.from.startsWith('safety/fs/') && edge.to === 'node:fs')).toBe(true);
    expect([...new Set(importers)]).toEqual([]);
  });

  it('no provider imports another: each is one folder under src/providers/', () => {
    const providerOf = (file: string) => /^providers\/([^/]+)\//.exec(file)?.[1] ?? null;
    const found = graph.edges
      .filter((edge) => {
        const from = providerOf(edge.from);
        const to = providerOf(edge.to);
        return from !== null && to !== null && from !== to;
      })
      .map((edge) => `${edge.from} imports ${edge.to}`);
    expect(graph.files.filter((file) => providerOf(file) !== null).length).toBeGreaterThan(0);
    expect(found).toEqual([]);
  });

  it('no shared engine imports a provider', () => {
    const found = graph.edges
      .filter((edge) => edge.from.startsWith('engines/') && edge.to.startsWith('providers/'))
      .map((edge) => `${edge.from} imports ${edge.to}`);
    expect(graph.files.some((file) => file.startsWith('engines/'))).toBe(true);
    expect(found).toEqual([]);
  });

  it('each top-level folder imports only the folders below it, type imports counted', () => {
    const rank = (file: string) => LAYERS.indexOf(layerOf(file) ?? '');
    const unknown = [...new Set(graph.files.map((file) => layerOf(file)))].filter(
      (layer) => layer !== null && !LAYERS.includes(layer),
    );
    expect(unknown).toEqual([]);
    expect(
      violations((from, to) => to.endsWith('.ts') && layerOf(from) !== layerOf(to) && rank(to) > rank(from)),
    ).toEqual([]);
  });

  it('model/ is the leaf: it imports nothing of the project but itself', () => {
    expect(
      violations((from, to) => from.startsWith('model/') && to.endsWith('.ts') && !to.startsWith('model/')),
    ).toEqual([]);
  });

  it('no file of src/ is in an import circle, type imports counted', () => {
    expect(fileCycles(graph)).toEqual([]);
  });

  it('reading the command line loads no provider: --only is checked against the registry when the pass starts', () => {
    const startup = ['cli.ts', ...graph.closure('cli.ts', { static: true })];
    expect(startup.filter((file) => file.startsWith('providers/'))).toEqual([]);
    expect(startup).toContain('commands/args.ts');
  });

  it('the check of the order sees an import that runs back up', () => {
    const planted = importGraph(['model/types.ts', 'pass/pass.ts'], (file) =>
      file === 'model/types.ts' ? [{ from: file, to: 'pass/pass.ts', typeOnly: true }] : [],
    );
    const rank = (file: string) => LAYERS.indexOf(layerOf(file) ?? '');
    expect(planted.edges.filter((edge) => rank(edge.to) > rank(edge.from))).toHaveLength(1);
    expect(
      fileCycles(
        importGraph(['a/x.ts', 'a/y.ts'], (file) => [
          { from: file, to: file === 'a/x.ts' ? 'a/y.ts' : 'a/x.ts', typeOnly: true },
        ]),
      ),
    ).toEqual(['a/x.ts -> a/y.ts -> a/x.ts']);
  });
});

/**
 * The top-level folders of src/, from the bottom up: a folder may import only those before it.
 * model/ (the report's vocabulary, reasons, errors) imports nothing; util/ and safety/ (the file
 * system, /proc, owners, removal) come next; git/ runs git; config/ reads the file, given the
 * providers; provider-api/ is what a provider is and is given; engines/ serve several providers;
 * providers/ are the tools and their registry; pass/ runs a pass; outputs/ render and export it;
 * reconcile/ runs a whole pass with its outputs; serve/ and commands/ call it; cli.ts is the entry.
 */
const LAYERS = [
  'model',
  'util',
  'safety',
  'git',
  'config',
  'provider-api',
  'engines',
  'providers',
  'pass',
  'outputs',
  'reconcile',
  'serve',
  'commands',
  '.',
];

/** Each circle of imports among the files of src/ (type imports counted), as `a -> b -> a`. */
function fileCycles(graph: ImportGraph): string[] {
  const next = (file: string) => graph.direct(file, true).filter((to) => to.endsWith('.ts'));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of next(file)) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file) as number, index.get(to) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    for (;;) {
      const top = stack.pop() as string;
      onStack.delete(top);
      circle.push(top);
      if (top === file) break;
    }
    if (circle.length > 1) {
      const sorted = circle.sort();
      found.push([...sorted, sorted[0]].join(' -> '));
    }
  };
  for (const file of graph.files) if (!index.has(file)) visit(file);
  return found.sort();
}
