import { describe, expect, it } from 'vitest';
import { chainTo, importGraph, layerOf, type ImportGraph } from './imports.js';

/**
 * The layers of src/, one way only. commands/ (and cli.ts, serve/) orchestrate: they run the pass,
 * write its report, deliver its metrics. core/ runs a pass and answers its report; it writes no
 * output. outputs/ renders and exports what it is given. A judge turns evidence into verdicts and
 * must stay pure: nothing it loads may start git, touch the disk or read the config.
 * Every import is read with TypeScript's own parser.
 */
const graph: ImportGraph = importGraph();

/** The modules that write or send a pass's results: core may not call them, the caller does. */
const isOutputWriter = (file: string) =>
  file.startsWith('outputs/') && [...graph.closure(file), file].some((each) => touchesDisk(each) || isNetwork(each));
const touchesDisk = (file: string) => file === 'node:fs' || file === 'node:fs/promises' || file === 'better-sqlite3';
const isNetwork = (file: string) => file === 'node:http' || file === 'node:net' || file === 'prom-client';
const startsProcesses = (file: string) => file === 'node:child_process' || file.startsWith('git/');
const isPassRunner = (file: string) => file === 'core/pass.ts' || file === 'core/executor.ts';

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

  it('core/ writes no output and knows no command: its callers write the report', () => {
    expect(
      violations(
        (from, to) =>
          from.startsWith('core/') && (layerOf(to) === 'commands' || layerOf(to) === 'serve' || isOutputWriter(to)),
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

  it('the top-level folders of src/ import each other without cycles, but for the imports listed with their reason', () => {
    expect(folderCycles(graph, ALLOWED_BACK_EDGES)).toEqual([]);
  });

  it('every import listed as an allowed back edge still exists (the list stays exact)', () => {
    const unused = ALLOWED_BACK_EDGES.filter(
      (allowed) => !graph.edges.some((edge) => !edge.typeOnly && isAllowed(allowed, edge.from, edge.to)),
    );
    expect(unused).toEqual([]);
  });
});

interface BackEdge {
  /** The importing folder, or `*` for any. */
  from: string;
  /** The files of another folder it may import although that folder sits below it. */
  to: readonly string[];
  why: string;
}

/** The run-time imports that point back up the layers, each with its reason. Nothing else may. */
const ALLOWED_BACK_EDGES: readonly BackEdge[] = [
  {
    from: '*',
    to: ['core/errors.ts'],
    why: 'the typed errors every layer throws and only cli.ts maps to exit codes; errors.ts imports nothing',
  },
  {
    from: 'config',
    to: ['providers/registry.ts'],
    why:
      "the config's `providers` section is each registered provider's own, and a provider may complete its section " +
      '(the worktrees sets) when the file is loaded, so a bad file is one clear error before any pass',
  },
];

function isAllowed(allowed: BackEdge, from: string, to: string): boolean {
  return (allowed.from === '*' || allowed.from === layerOf(from)) && allowed.to.includes(to);
}

/** Each cycle among the top-level folders of src/ through run-time imports, as `a -> b -> a`. */
function folderCycles(graph: ImportGraph, allowed: readonly BackEdge[]): string[] {
  const reaches = new Map<string, Set<string>>();
  for (const edge of graph.edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (edge.typeOnly || !from || !to || from === to) continue;
    if (allowed.some((each) => isAllowed(each, edge.from, edge.to))) continue;
    reaches.set(from, (reaches.get(from) ?? new Set()).add(to));
  }
  const cycles = new Set<string>();
  const walk = (trail: string[]) => {
    const here = trail[trail.length - 1] as string;
    for (const next of reaches.get(here) ?? []) {
      const at = trail.indexOf(next);
      if (at >= 0) {
        const cycle = trail.slice(at);
        const start = cycle.indexOf([...cycle].sort()[0] as string);
        const turned = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.add([...turned, turned[0]].join(' -> '));
      } else walk([...trail, next]);
    }
  };
  for (const folder of reaches.keys()) walk([folder]);
  return [...cycles].sort();
}
