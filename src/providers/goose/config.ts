import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.goose` of the config file, with its defaults. */
export const gooseSection = z
  .strictObject({
    enabled,
    stateDir: pathList.optional(),
    dataDir: pathList.optional(),
  })
  .prefault({});

export type GooseSection = z.output<typeof gooseSection>;

/** This provider's section of a loaded config. */
export const gooseConfig = (config: EffectiveConfig): GooseSection => gooseSection.parse(config.providers.goose);
