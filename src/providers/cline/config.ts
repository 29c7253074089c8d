import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.cline` of the config file, with its defaults. */
export const clineSection = z
  .strictObject({ enabled, userDataDir: pathList.optional(), dataDir: pathList.optional() })
  .prefault({});

export type ClineSection = z.output<typeof clineSection>;

/** This provider's section of a loaded config. */
export const clineConfig = (config: EffectiveConfig): ClineSection => clineSection.parse(config.providers.cline);
