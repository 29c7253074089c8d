import path from 'node:path';
import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.codex` of the config file, with its defaults. */
export const codexSection = z
  .strictObject({
    enabled,
    /**
     * Other Codex homes (a work profile's `CODEX_HOME`) whose threads may own the app's worktrees
     * in a root they share: read as sources of truth, never cleaned.
     */
    homes: pathList
      .refine((paths) => paths.every((each) => path.isAbsolute(each)), { message: 'expected absolute paths' })
      .optional(),
  })
  .prefault({});

export type CodexSection = z.output<typeof codexSection>;

/** This provider's section of a loaded config. */
export const codexConfig = (config: EffectiveConfig): CodexSection => codexSection.parse(config.providers.codex);
