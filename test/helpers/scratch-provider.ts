import path from 'node:path';
import { existsSync } from 'node:fs';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { reconcile } from '../../src/reconcile/reconcile.js';
import type { PassResult } from '../../src/pass/pass.js';
import type { Candidate } from '../../src/provider-api/candidate.js';
import type { OwnerJudgement, ProviderName } from '../../src/model/types.js';
import type { Provider } from '../../src/provider-api/provider.js';
import { readdirNamesSync } from '../../src/safety/fs/list.js';
import { quarantinedName } from '../../src/safety/removal/quarantine.js';
import { PROVIDERS } from '../../src/providers/registry.js';

/**
 * A real provider for testing the core alone: every direct child of `root` is a candidate whose
 * owner judgement comes from `judgements` (by name), `delete` by default.
 */
export function scratchProvider(options: {
  root: string;
  judgements?: Record<string, OwnerJudgement>;
  name?: ProviderName;
  failWith?: string;
}): Provider {
  const name = options.name ?? 'watchfire';
  return {
    name,
    async gather() {
      if (!existsSync(options.root)) return { roots: [], candidates: [] };
      const candidates: Candidate[] = [];
      // Names as bytes (src/safety/fs/), as every provider lists them.
      for (const entry of readdirNamesSync(options.root)) {
        const full = path.join(options.root, entry);
        if (quarantinedName(entry) !== null) {
          candidates.push({
            provider: name,
            kind: 'quarantine',
            path: full,
            root: options.root,
            judgement: {
              decision: 'delete',
              reason: 'quarantine-leftover',
              detail: 'a quarantine left by an earlier pass',
            },
          });
          continue;
        }
        const judgement: OwnerJudgement = options.failWith
          ? { decision: 'refused', reason: 'source-unreadable', detail: options.failWith }
          : (options.judgements?.[entry] ?? {
              decision: 'delete',
              reason: 'project-deleted',
              detail: `${entry} is dead by the test's record`,
            });
        candidates.push({ provider: name, kind: 'session-home', path: full, root: options.root, judgement });
      }
      return {
        roots: [
          {
            provider: name,
            root: options.root,
            ok: !options.failWith,
            ...(options.failWith ? { error: options.failWith } : {}),
          },
        ],
        candidates,
      };
    },
  };
}

export async function scratchPass(options: {
  provider: Provider;
  reportDir: string;
  reportOnly?: boolean;
  minAge?: string;
  processCheck?: 'auto' | 'required' | 'off';
  procRoot?: string;
  clock?: () => Date;
  onPlanned?: () => void | Promise<void>;
}): Promise<PassResult> {
  const config = await loadConfig({
    providers: PROVIDERS,
    env: { HOME: options.reportDir },
    overrides: { reportDir: options.reportDir, minAge: options.minAge ?? '1h' },
  });
  config.processCheck = options.processCheck ?? 'auto';
  return reconcile({
    config,
    providers: [options.provider],
    reportOnly: options.reportOnly ?? false,
    log: pino({ level: 'silent' }),
    env: {},
    clock: options.clock,
    procRoot: options.procRoot,
    onPlanned: options.onPlanned,
  });
}
