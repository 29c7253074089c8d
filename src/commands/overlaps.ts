import pino from 'pino';
import { expandHomes } from '../config/homes.js';
import type { EffectiveConfig } from '../config/schema.js';
import { rejectOverlappingRoots } from '../pass/overlaps.js';
import { PROVIDERS } from '../providers/registry.js';
import { createTreeCache } from '../safety/walk/tree-cache.js';

/** Refuses (exit 2) a config in which two providers or worktree sets would judge the same folders. */
export async function rejectOverlaps(config: EffectiveConfig): Promise<void> {
  await rejectOverlappingRoots(PROVIDERS, {
    config,
    homes: await expandHomes(config.homes),
    now: new Date(),
    log: pino({ level: 'silent' }),
    env: process.env,
    measure: createTreeCache(),
    registry: PROVIDERS,
  });
}
