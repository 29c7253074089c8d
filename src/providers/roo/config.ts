import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.roo` of the config file, with its defaults. */
export const rooSection = z
  .strictObject({
    enabled,
    extensions: z.array(z.enum(['roo', 'kilo'])).default(() => ['roo' as const, 'kilo' as const]),
    userDataDir: pathList.optional(),
  })
  .prefault({});

export type RooSection = z.output<typeof rooSection>;

/** This provider's section of a loaded config. */
export const rooConfig = (config: EffectiveConfig): RooSection => rooSection.parse(config.providers.roo);
