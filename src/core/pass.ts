import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { durationMs } from '../config/duration.js';
import { expandHomes } from '../config/homes.js';
import type { EffectiveConfig } from '../config/schema.js';
import { inspectCandidate, stillListed, type InspectedFacts } from '../safety/inspect.js';
import { judge } from '../safety/judge.js';
import { scanProcesses, type ProcessTable } from '../safety/processes.js';
import { createTreeCache, type TreeFacts } from '../safety/walk.js';
import { WalkWatch } from '../safety/walk-watch.js';
import { acquireRunLock } from '../safety/run-lock.js';
import { createPlaceFinder } from '../safety/place.js';
import { escapedItem, escapedRoot } from '../outputs/escape.js';
import { appendAudit, writeReport } from '../outputs/report-files.js';
import { computeTotals } from '../outputs/totals.js';
import { oneVerdictPerPath, type JudgedClaim } from './claims.js';
import { rejectOverlappingRoots } from './overlaps.js';
import { errorMessage } from './errors.js';
import { executePlan, type PlannedDeletion } from './executor.js';
import type { PassProgress } from './progress.js';
import type { Candidate, Liveness, Provider, ProviderName, Report, ReportItem, RootStatus } from './types.js';
import { VERSION } from './version.js';

export interface PassOptions {
  config: EffectiveConfig;
  providers: readonly Provider[];
  only?: readonly ProviderName[];
  reportOnly: boolean;
  log: Logger;
  env: NodeJS.ProcessEnv;
  clock?: () => Date;
  procRoot?: string;
  /** Told of the pass's advance (a progress line on a terminal). */
  progress?: PassProgress;
  /** Called with every verdict once the plan is judged, before anything is deleted. */
  onPlanned?: (items: readonly ReportItem[]) => void | Promise<void>;
}

export interface PassResult {
  report: Report;
  /** 0 when every provider was reconciled and every action succeeded, else 1. */
  exitCode: 0 | 1;
}

/** One reconcile pass: lock, scan /proc, gather, inspect, judge, apply (unless report-only), report. */
export async function runPass(options: PassOptions): Promise<PassResult> {
  const homes = await expandHomes(options.config.homes);
  await rejectOverlappingRoots(options.providers, {
    config: options.config,
    homes,
    now: new Date(),
    log: options.log,
    env: options.env,
    measure: createTreeCache(),
  });
  const lock = await acquireRunLock(options.config.reportDir);
  if (lock.repaired)
    options.log.warn({ lock: lock.path, was: lock.repaired }, 'the run lock file was unusable and has been replaced');
  try {
    return await lockedPass(options, homes);
  } finally {
    lock.release();
  }
}

async function lockedPass(options: PassOptions, homes: string[]): Promise<PassResult> {
  const { config, log } = options;
  const clock = options.clock ?? (() => new Date());
  const started = clock();
  const mode = options.reportOnly ? 'report-only' : 'delete';
  log.debug({ homes }, 'homes');

  // /proc is read before any walk, so that each walk (most happen while the providers gather, through
  // the shared cache) looks every entry up among the files processes hold: one walk, both tests.
  const processes = config.processCheck === 'off' ? null : scanProcesses(options.procRoot);
  const watch = processes?.visible ? new WalkWatch(processes.identities, !options.reportOnly) : null;
  const roots: RootStatus[] = [];
  const candidates: Candidate[] = [];
  const measure = toldOfSizes(createTreeCache(watch ? (root) => watch.visitorFor(root) : undefined), options.progress);
  for (const provider of selectProviders(options.providers, config, options.only)) {
    options.progress?.gathering(provider.name);
    try {
      const gathered = await provider.gather({
        config,
        homes,
        now: started,
        log: log.child({ provider: provider.name }),
        env: options.env,
        measure,
      });
      roots.push(...gathered.roots);
      candidates.push(...gathered.candidates);
    } catch (err) {
      log.error({ err, provider: provider.name }, 'provider failed');
      roots.push({ provider: provider.name, root: homes.join(', '), ok: false, error: errorMessage(err) });
    }
  }

  const liveness: Liveness = describeLiveness(processes);
  const policy = { minAgeMs: durationMs(config.minAge), processCheck: config.processCheck, mode } as const;
  const judgedAt = clock().getTime();

  const judged: Array<JudgedClaim<InspectedFacts | null>> = [];
  const placeOf = createPlaceFinder();
  for (const candidate of candidates) {
    const facts = inspectCandidate(candidate, processes, measure, watch);
    if (facts && !facts.exists && candidate.judgement.decision === 'delete') {
      if (!stillListed(candidate.path as string)) continue;
      facts.vanished = `${candidate.path} itself, which its folder still lists`;
    }
    const verdict = judge(candidate, facts, liveness, policy, judgedAt);
    options.progress?.judged(candidate.provider);
    judged.push({ candidate, facts, verdict, place: candidate.path === null ? null : placeOf(candidate.path) });
  }
  const items: ReportItem[] = [];
  const deletions: PlannedDeletion[] = [];
  for (const { primary, verdict, claims } of oneVerdictPerPath(judged)) {
    const { candidate, facts } = primary;
    const item: ReportItem = {
      provider: candidate.provider,
      kind: candidate.kind,
      path: candidate.path,
      bytes: facts?.bytes ?? 0,
      verdict: verdict.verdict === 'delete' ? 'would-delete' : verdict.verdict,
      reason: verdict.reason,
      detail: verdict.detail,
      ...(claims.length > 0 ? { claimedBy: claims } : {}),
    };
    items.push(item);
    if (verdict.verdict === 'delete') {
      const inodes = candidate.path === null ? null : (watch?.inodesOf(path.resolve(candidate.path)) ?? null);
      deletions.push({ candidate, facts, item, inodes });
    }
  }
  watch?.clear();

  await options.onPlanned?.(items);
  if (deletions.length > 0) {
    await executePlan(deletions, {
      log,
      onDeleted: async (item) => appendAudit(config.reportDir, item, clock()),
      ...(processes?.visible ? { rescanProcesses: () => scanProcesses(options.procRoot) } : {}),
    });
  }

  const report: Report = {
    schemaVersion: 1,
    tool: { name: 'agent-janitor', version: VERSION },
    mode,
    host: os.hostname(),
    startedAt: started.toISOString(),
    finishedAt: clock().toISOString(),
    processCheck: {
      mode: config.processCheck,
      inspected: liveness.inspected,
      uninspectable: liveness.uninspectable,
      visible: liveness.visible,
    },
    // Names that are not UTF-8 are written with their bytes escaped, everywhere the report goes.
    providers: roots.map(escapedRoot),
    items: items.map(escapedItem),
    totals: computeTotals(items),
  };
  await writeReport(config.reportDir, report);
  const failed = roots.some((root) => !root.ok) || report.totals.failed > 0;
  return { report, exitCode: failed ? 1 : 0 };
}

/** The providers a pass reconciles: enabled in the config and named by --only, when given. */
export function selectProviders(
  providers: readonly Provider[],
  config: EffectiveConfig,
  only: readonly ProviderName[] | undefined,
): Provider[] {
  return providers
    .filter((provider) => config.providers[provider.name].enabled)
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

function describeLiveness(processes: ProcessTable | null): Liveness {
  if (!processes) return { visible: true, inspected: 0, uninspectable: 0, why: 'processCheck is off' };
  return {
    visible: processes.visible,
    inspected: processes.inspected,
    uninspectable: processes.uninspectable,
    why: processes.why,
  };
}
