import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import type { EffectiveConfig } from '../../src/config/schema.js';
import type { Candidate } from '../../src/provider-api/candidate.js';
import type { ItemKind, OwnerJudgement, ProviderName } from '../../src/model/types.js';
import type { Provider } from '../../src/provider-api/provider.js';
import type { Reason } from '../../src/model/types.js';
import { PassBroke, reconcile, type ReconcileOptions } from '../../src/reconcile/reconcile.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { PROVIDERS } from '../../src/providers/registry.js';

export interface FixtureItem {
  name: string;
  kind: ItemKind;
  judgement: OwnerJudgement;
  /** file name → size in bytes */
  files: Record<string, number>;
  /** Written just now, so minAge protects it (default: three days old). */
  fresh?: boolean;
}

const dead = (reason: Reason = 'project-deleted'): OwnerJudgement => ({
  decision: 'delete',
  reason,
  detail: 'dead by the test record',
});
const kept = (reason: Reason = 'session-running'): OwnerJudgement => ({
  decision: 'kept',
  reason,
  detail: 'alive by the test record',
});
const unfinished = (reason: Reason): OwnerJudgement => ({
  decision: 'unfinished',
  reason,
  detail: 'work left by the test record',
});
const refused = (reason: Reason): OwnerJudgement => ({
  decision: 'refused',
  reason,
  detail: 'refused by the test record',
});

/** Lays the items out as real folders of real files under `root`. */
export function buildItems(root: string, items: readonly FixtureItem[]): void {
  mkdirSync(root, { recursive: true });
  for (const item of items) {
    const folder = path.join(root, item.name);
    mkdirSync(folder, { recursive: true });
    for (const [file, size] of Object.entries(item.files)) put(path.join(folder, file), Buffer.alloc(size, 'x'));
    if (!item.fresh) backdate(folder, daysAgo(3));
  }
}

export const bytesOf = (item: FixtureItem): number => Object.values(item.files).reduce((sum, size) => sum + size, 0);

export interface FixtureProviderOptions {
  /** The source of truth is unreadable: the root is not ok and every item is refused. */
  failWith?: string;
  /** Awaited at the start of every gather (to make a pass slow, or hold it at a known point). */
  beforeGather?: () => Promise<void>;
}

/** A real provider over real folders: each item present on disk is a candidate with its judgement. */
export function fixtureProvider(
  name: ProviderName,
  root: string,
  items: readonly FixtureItem[],
  options: FixtureProviderOptions = {},
): Provider {
  return {
    name,
    async gather() {
      await options.beforeGather?.();
      if (!existsSync(root)) return { roots: [], candidates: [] };
      const candidates: Candidate[] = items
        .filter((item) => existsSync(path.join(root, item.name)))
        .map((item) => ({
          provider: name,
          kind: item.kind,
          path: path.join(root, item.name),
          root,
          judgement: options.failWith
            ? { decision: 'refused', reason: 'source-unreadable', detail: options.failWith }
            : item.judgement,
        }));
      const status = options.failWith ? { ok: false, error: options.failWith } : { ok: true };
      return { roots: [{ provider: name, root, ...status }], candidates };
    },
  };
}

/** The scene most tests share: two providers, every verdict a pass can reach without a fault. */
export const WATCHFIRE_ITEMS: FixtureItem[] = [
  {
    name: 'dead',
    kind: 'session-home',
    judgement: dead('project-deleted'),
    files: { 'a.jsonl': 1000, 'b/c.txt': 234 },
  },
  { name: 'alive', kind: 'session-home', judgement: kept('session-running'), files: { 'log.jsonl': 300 } },
  { name: 'fresh', kind: 'session-home', judgement: dead('project-deleted'), files: { 'new.txt': 50 }, fresh: true },
];
export const KILO_ITEMS: FixtureItem[] = [
  { name: 'gone', kind: 'checkpoint-repo', judgement: dead('worktree-removed'), files: { 'objects/pack': 2048 } },
  { name: 'dirty', kind: 'checkpoint-repo', judgement: unfinished('uncommitted-changes'), files: { index: 500 } },
  { name: 'pinned', kind: 'checkpoint-repo', judgement: refused('kilo-lock-held'), files: { HEAD: 700 } },
];

export interface FixtureConfig {
  reportDir: string;
  metricsFile?: string;
  pushgateway?: string;
  job?: string;
}

export async function fixtureConfig(options: FixtureConfig): Promise<EffectiveConfig> {
  const config = await loadConfig({
    providers: PROVIDERS,
    env: { HOME: options.reportDir },
    overrides: {
      reportDir: options.reportDir,
      minAge: '1h',
      ...(options.metricsFile ? { metricsFile: options.metricsFile } : {}),
      ...(options.pushgateway ? { pushgateway: options.pushgateway } : {}),
    },
  });
  if (options.job && config.metrics.pushgateway) config.metrics.pushgateway.job = options.job;
  // The metrics do not depend on the process check; a container's hidden PID namespace would refuse all.
  config.processCheck = 'off';
  return config;
}

export function fixturePassOptions(
  config: EffectiveConfig,
  providers: Provider[],
  extra: Partial<ReconcileOptions> = {},
): ReconcileOptions {
  return { config, providers, reportOnly: false, log: pino({ level: 'silent' }), env: {}, ...extra };
}

/** One real pass through the same path `run` takes (src/reconcile/reconcile.ts), a broken one answered as such. */
export async function fixturePass(
  config: EffectiveConfig,
  providers: Provider[],
  extra: Partial<ReconcileOptions> = {},
) {
  try {
    const pass = await reconcile(fixturePassOptions(config, providers, extra));
    return {
      finished: true as const,
      result: { report: pass.report, exitCode: pass.outcome.exitCode },
      outcome: pass.outcome,
      delivery: pass.delivery,
      exitCode: pass.exitCode,
    };
  } catch (err) {
    if (!(err instanceof PassBroke)) throw err;
    return { finished: false as const, error: err.cause, outcome: err.outcome, delivery: err.delivery };
  }
}
