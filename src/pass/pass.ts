import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { durationMs } from '../util/duration.js';
import { unmatchedHomes } from '../config/homes.js';
import type { EffectiveConfig } from '../config/schema.js';
import { inspectCandidate, stillListed, type InspectedFacts } from './inspect.js';
import { pidsInside, union } from '../safety/processes/processes.js';
import { judge } from './judge.js';
import { scanProcesses, type ProcessScope, type ProcessTable } from '../safety/processes/processes.js';
import type { TreeFacts } from '../safety/walk/walk.js';
import { createTreeCache } from '../safety/walk/tree-cache.js';
import { WalkWatch } from '../safety/walk/walk-watch.js';
import { createPlaceFinder } from '../safety/place.js';
import { CLOCK_MARGIN_MS } from '../safety/since.js';
import { escapedItem, escapedRoot } from './escape.js';
import { computeTotals } from '../model/totals.js';
import { oneVerdictPerPath, standsApart, type JudgedClaim, type Settled } from './claims.js';
import { errorMessage, UsageError } from '../model/errors.js';
import { executePlan, type ExecutedDeletion, type PlannedDeletion } from './executor.js';
import type { PassProgress } from './progress.js';
import type { Candidate } from '../provider-api/candidate.js';
import type { FootprintEntry, Liveness, ProviderName, Report, ReportItem, RootStatus } from '../model/types.js';
import type { GatherContext, Provider } from '../provider-api/provider.js';
import { measureFootprint } from './footprint.js';
import { VERSION } from '../util/version.js';

export interface PassOptions {
  config: EffectiveConfig;
  /** The config's homes after glob expansion. */
  homes: string[];
  providers: readonly Provider[];
  only?: readonly ProviderName[];
  reportOnly: boolean;
  log: Logger;
  env: NodeJS.ProcessEnv;
  clock?: () => Date;
  procRoot?: string;
  /** Whose processes the pass looks at: the machine's (a real pass), or only its own (the demo's). */
  processScope?: ProcessScope;
  /** Told of the pass's advance (a progress line on a terminal). */
  progress?: PassProgress;
  /**
   * The level of the line logged for each deletion: info where logs are kept (a file, journald);
   * debug for a person at a terminal, who gets one line at info for all of them.
   */
  itemLogLevel?: 'info' | 'debug';
  /** Called with every verdict once the plan is judged, before anything is deleted. */
  onPlanned?: (items: readonly ReportItem[]) => void | Promise<void>;
  /** Called after each deletion, as it happens (the audit log), with the time it was done. */
  onDeleted?: (item: ReportItem, at: Date) => Promise<void>;
}

export interface PassResult {
  /** The pass's report; the caller writes it (the pass writes no report file). */
  report: Report;
  /** 0 when every provider was reconciled and every action succeeded, else 1. */
  exitCode: 0 | 1;
}

/**
 * The pass itself, under the run lock its caller holds (src/reconcile/reconcile.ts): scan /proc,
 * gather, plan (inspect, judge), apply unless report-only; answers the report, written by the caller.
 */
export async function runPass(options: PassOptions): Promise<PassResult> {
  return lockedPass(options, options.homes);
}

/** What the walks and /proc of one pass share: the process table, the walk cache, and what the walks saw. */
interface PassSight {
  /** The processes the safety engine checks candidates against; null with `processCheck: off`. */
  processes: ProcessTable | null;
  /** The pass's one look at /proc, whatever processCheck says: what providers read of their tools' processes. */
  seen: ProcessTable;
  /** A fresh look at /proc, for a provider's proof taken again just before a delete. */
  lookAtProcesses: () => ProcessTable;
  watch: WalkWatch | null;
  measure: (root: string) => TreeFacts;
  /** The trees the pass will ask `measure` for next, walked ahead beside it. */
  measureAhead: (roots: readonly string[]) => void;
  /** Resolves once `measure` would not take these from the walk ahead. */
  whenMeasured: (roots: readonly string[]) => Promise<void>;
  /** The facts of a tree the pass walked already, without walking it. */
  walked: (root: string) => TreeFacts | undefined;
}

async function lockedPass(options: PassOptions, homes: string[]): Promise<PassResult> {
  const clock = options.clock ?? (() => new Date());
  const started = clock();
  options.log.debug({ homes }, 'homes');

  // The last proof keeps every item with an entry changed after this moment (src/safety/since.ts):
  // the kernel's own clock, read before any evidence, and at least a margin before the first of it.
  const evidenceSinceMs = Date.now();
  // /proc is read before any walk, so that each walk (most happen while the providers gather, through
  // the shared cache) looks every entry up among the files processes hold: one walk, both tests.
  // Read whatever processCheck says: providers read their tools' live processes from it (rule 27).
  const variables = new Set(options.providers.flatMap((provider) => provider.processVariables ?? []));
  const lookAtProcesses = () => scanProcesses(options.procRoot, undefined, variables, options.processScope);
  const seen = lookAtProcesses();
  const processes = options.config.processCheck === 'off' ? null : seen;
  if (!options.reportOnly) await until(evidenceSinceMs + CLOCK_MARGIN_MS);
  const watch = seen.visible ? new WalkWatch(seen.identities, !options.reportOnly) : null;
  const trees = createTreeCache({
    ...(watch ? { visitorFor: (root: string) => watch.visitorFor(root) } : {}),
    walkAhead: true,
    env: options.env,
  });
  const sight: PassSight = {
    processes,
    seen,
    lookAtProcesses,
    watch,
    measure: toldOfSizes(trees, options.progress),
    measureAhead: trees.ahead,
    whenMeasured: trees.whenMeasured,
    walked: trees.peek,
  };
  const liveness = describeLiveness(processes);
  const { roots, plan } = await gatherAndPlan(options, homes, started, sight, liveness, clock).finally(trees.close);
  watch?.clear();
  // The disk as the pass found it, before anything is deleted, by the walks the plan made.
  const footprint = options.config.footprint.enabled
    ? await measureFootprint({
        providers: selectProviders(options.providers, options.config, options.only),
        contextFor: (provider) => contextFor(provider, options, homes, started, sight),
        roots,
        items: plan.items,
        walked: sight.walked,
        log: options.log,
      })
    : undefined;

  await options.onPlanned?.(plan.items);
  const executed =
    plan.deletions.length > 0 ? await applyPlan(plan.deletions, options, clock, sight, evidenceSinceMs) : [];
  const report = buildReport(
    options,
    { started, finished: clock(), liveness, roots },
    withOutcomes(plan.items, executed),
    footprint,
  );
  const failed = roots.some((root) => !root.ok) || report.totals.failed > 0;
  return { report, exitCode: failed ? 1 : 0 };
}

/** The plan, judged at the end of gathering (one look at the clock for every candidate). */
async function gatherAndPlan(
  options: PassOptions,
  homes: string[],
  started: Date,
  sight: PassSight,
  liveness: Liveness,
  clock: () => Date,
): Promise<{ roots: RootStatus[]; plan: Plan }> {
  const { roots, candidates } = await gather(options, homes, started, sight);
  return { roots, plan: await planDeletions(candidates, sight, liveness, options, clock().getTime()) };
}

/** Gather: each selected provider lists its candidates; one that throws is a root that is not ok. */
async function gather(
  options: PassOptions,
  homes: string[],
  now: Date,
  sight: PassSight,
): Promise<{ roots: RootStatus[]; candidates: Candidate[] }> {
  const { config, log } = options;
  const roots: RootStatus[] = [];
  const candidates: Candidate[] = [];
  const missing = await missingHomes(config.homes, log);
  const selected = selectProviders(options.providers, config, options.only);
  for (const [index, provider] of selected.entries()) {
    if (provider.usesHomes?.(config) ?? true)
      for (const home of missing)
        roots.push({ provider: provider.name, root: home, ok: true, warning: homeWarning(home) });
    options.progress?.gathering(provider.name, index + 1, selected.length);
    try {
      const gathered = await provider.gather(contextFor(provider, options, homes, now, sight));
      roots.push(...gathered.roots);
      candidates.push(...gathered.candidates);
      options.progress?.gathered(provider.name, gathered.candidates.length);
      // Walked beside the providers still to gather (their git runs leave this process idle).
      sight.measureAhead(gathered.candidates.flatMap(treesOf));
    } catch (err) {
      log.error({ err, provider: provider.name }, 'provider failed');
      roots.push({ provider: provider.name, root: homes.join(', '), ok: false, error: errorMessage(err) });
    }
  }
  return { roots, candidates };
}

/** What a provider is told when asked to gather (and where its tool's state lives). */
function contextFor(
  provider: Provider,
  options: PassOptions,
  homes: string[],
  now: Date,
  sight: PassSight,
): GatherContext {
  return {
    config: options.config,
    homes,
    now,
    log: options.log.child({ provider: provider.name }),
    env: options.env,
    measure: sight.measure,
    measureAhead: sight.measureAhead,
    whenMeasured: sight.whenMeasured,
    registry: options.providers,
    processes: sight.seen,
    holdersOf: (dir) => holdersOf(sight, dir),
  };
}

/** The homes that name no folder, each said once on stderr: a pass over them finds nothing at all. */
async function missingHomes(patterns: readonly string[], log: Logger): Promise<string[]> {
  const missing = await unmatchedHomes(patterns);
  for (const home of missing) log.warn({ home }, homeWarning(home));
  return missing;
}

const homeWarning = (home: string): string =>
  `the home ${home} does not exist (or no folder matches it): nothing of it was looked at`;

interface Plan {
  /** Every verdict, one per path; report-only passes stop here. */
  items: ReportItem[];
  deletions: PlannedDeletion[];
}

/**
 * Plan: inspect and judge each candidate, then one verdict per path. The same plan in both modes.
 * Each candidate waits for the walk ahead of its trees, if one is on its way.
 */
async function planDeletions(
  candidates: readonly Candidate[],
  sight: PassSight,
  liveness: Liveness,
  options: PassOptions,
  judgedAt: number,
): Promise<Plan> {
  const { config } = options;
  const mode = options.reportOnly ? 'report-only' : 'delete';
  const policy = { minAgeMs: durationMs(config.minAge), processCheck: config.processCheck, mode } as const;
  const judged: Array<JudgedClaim<InspectedFacts | null>> = [];
  const placeOf = createPlaceFinder();
  sight.measureAhead(candidates.flatMap(treesOf));
  options.progress?.inspecting(candidates.length);
  for (const candidate of candidates) {
    await sight.whenMeasured(treesOf(candidate));
    const facts = inspectCandidate(candidate, sight.processes, sight.measure, sight.watch);
    options.progress?.inspected();
    if (facts && !facts.exists && candidate.judgement.decision === 'delete') {
      if (!stillListed(candidate.path as string)) continue;
      facts.vanished = `${candidate.path} itself, which its folder still lists`;
    }
    const verdict = judge(candidate, facts, liveness, policy, judgedAt);
    judged.push({ candidate, facts, verdict, place: candidate.path === null ? null : placeOf(candidate.path) });
  }
  const items: ReportItem[] = [];
  const deletions: PlannedDeletion[] = [];
  const settled = oneVerdictPerPath(judged);
  const apart = bytesStandingApart(settled);
  for (const { primary, verdict, claims } of settled) {
    const { candidate, facts } = primary;
    const own = facts?.bytes ?? 0;
    const item: ReportItem = {
      provider: candidate.provider,
      kind: candidate.kind,
      path: candidate.path,
      bytes: primary.place ? Math.max(0, own - (apart.get(primary.place.self) ?? 0)) : own,
      verdict: verdict.verdict === 'delete' ? 'would-delete' : verdict.verdict,
      reason: verdict.reason,
      detail: verdict.detail,
      ...(claims.length > 0 ? { claimedBy: claims } : {}),
    };
    items.push(item);
    if (verdict.verdict === 'delete') {
      const inodes = candidate.path === null ? null : (sight.watch?.inodesOf(path.resolve(candidate.path)) ?? null);
      deletions.push({ candidate, facts, item, inodes });
    }
  }
  return { items, deletions };
}

/**
 * The bytes of the items reported on their own inside each folder (git's temporary files in a
 * live repository), by the folder's place: the folder's item reports the rest, so that no byte is
 * counted twice.
 */
function bytesStandingApart(settled: ReadonlyArray<Settled<InspectedFacts | null>>): Map<string, number> {
  const below = new Map<string, number>();
  for (const { primary, claims } of settled) {
    if (!standsApart(primary.candidate) || claims.length > 0 || !primary.place) continue;
    const bytes = primary.facts?.bytes ?? 0;
    for (const key of primary.place.above) below.set(key, (below.get(key) ?? 0) + bytes);
  }
  return below;
}

/** Apply: the executor carries out the deletions (its re-checks and last proofs run just before each removal). */
function applyPlan(
  deletions: readonly PlannedDeletion[],
  options: PassOptions,
  clock: () => Date,
  sight: PassSight,
  evidenceSinceMs: number,
): Promise<ExecutedDeletion[]> {
  const bytes = deletions.reduce((sum, deletion) => sum + deletion.item.bytes, 0);
  options.progress?.deleting(deletions.length, bytes);
  return executePlan(deletions, {
    log: options.log,
    evidenceSinceMs,
    minAgeMs: durationMs(options.config.minAge),
    onDeleted: async (item) => options.onDeleted?.(item, clock()),
    lookAtProcesses: sight.lookAtProcesses,
    ...(sight.processes?.visible ? { rescanProcesses: sight.lookAtProcesses } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.itemLogLevel ? { itemLogLevel: options.itemLogLevel } : {}),
  });
}

/** The plan's items, each deletion the executor carried out (or failed, or refused) as it ended. */
function withOutcomes(items: readonly ReportItem[], executed: readonly ExecutedDeletion[]): ReportItem[] {
  const outcomes = new Map(executed.map(({ planned, outcome }) => [planned, outcome]));
  return items.map((item) => outcomes.get(item) ?? item);
}

/** Report: what the pass saw and did, with names that are not UTF-8 escaped, everywhere the report goes. */
function buildReport(
  options: PassOptions,
  pass: { started: Date; finished: Date; liveness: Liveness; roots: readonly RootStatus[] },
  items: readonly ReportItem[],
  footprint: FootprintEntry[] | undefined,
): Report {
  const { liveness } = pass;
  return {
    schemaVersion: 1,
    tool: { name: 'agent-janitor', version: VERSION },
    mode: options.reportOnly ? 'report-only' : 'delete',
    host: os.hostname(),
    startedAt: pass.started.toISOString(),
    finishedAt: pass.finished.toISOString(),
    processCheck: {
      mode: options.config.processCheck,
      inspected: liveness.inspected,
      uninspectable: liveness.uninspectable,
      visible: liveness.visible,
      ...(liveness.blindBecause ? { blindBecause: liveness.blindBecause } : {}),
    },
    providers: pass.roots.map(escapedRoot),
    items: items.map(escapedItem),
    ...(footprint ? { footprint } : {}),
    totals: computeTotals(items),
  };
}

/**
 * The providers a pass reconciles: enabled in the config and named by --only, when given. A name
 * --only gives that no registered provider has is bad usage.
 */
export function selectProviders(
  providers: readonly Provider[],
  config: EffectiveConfig,
  only: readonly ProviderName[] | undefined,
): Provider[] {
  const known = providers.map((provider) => provider.name);
  for (const name of only ?? [])
    if (!known.includes(name))
      throw new UsageError(`--only: unknown provider ${JSON.stringify(name)} (known: ${known.join(', ')})`);
  return providers
    .filter((provider) => config.providers[provider.name]?.enabled)
    .filter((provider) => !only || only.length === 0 || only.includes(provider.name));
}

/** The pass's one tree cache, telling `progress` the size of each tree it walks. */
function toldOfSizes(measure: (root: string) => TreeFacts, progress: PassProgress | undefined) {
  if (!progress) return measure;
  return (root: string): TreeFacts => {
    const facts = measure(root);
    progress.measured(root, facts.bytes);
    return facts;
  };
}

/**
 * The pids with anything inside a folder: by path (a working directory, a root, a deleted file,
 * a mapping) and by identity, from the walk of the folder (an open file, a process in another
 * mount namespace). Null where processes cannot be seen.
 */
function holdersOf(sight: PassSight, dir: string): number[] | null {
  if (!sight.seen.visible) return null;
  const target = path.resolve(dir);
  if (sight.watch) {
    try {
      sight.measure(target);
    } catch {
      // Gone or unreadable: what its path says is all there is.
    }
  }
  return union(pidsInside(sight.seen, target), sight.watch?.pidsInside(target) ?? []);
}

/** The trees inspecting a candidate walks, in the order it walks them. */
function treesOf(candidate: Candidate): string[] {
  return candidate.path === null ? [] : [path.resolve(candidate.path), ...(candidate.alsoWatch ?? [])];
}

/** Resolves once the clock reads `ms` or later. */
async function until(ms: number): Promise<void> {
  const wait = ms - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 1));
}

function describeLiveness(processes: ProcessTable | null): Liveness {
  if (!processes) return { visible: true, inspected: 0, uninspectable: 0, why: 'processCheck is off' };
  return {
    visible: processes.visible,
    inspected: processes.inspected,
    uninspectable: processes.uninspectable,
    ...(processes.blindBecause ? { blindBecause: processes.blindBecause } : {}),
    why: processes.why,
  };
}
