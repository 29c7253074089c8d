import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { duration, enabled, pathList } from '../../config/sections.js';

/** `providers.owl` of the config file, with its defaults. */
export const owlSection = z
  .strictObject({
    enabled,
    reviewAfter: duration.default('7d'),
    dataDir: pathList.optional(),
    stateDir: pathList.optional(),
  })
  .prefault({});

export type OwlSection = z.output<typeof owlSection>;

/** This provider's section of a loaded config. */
export const owlConfig = (config: EffectiveConfig): OwlSection => owlSection.parse(config.providers.owl);
