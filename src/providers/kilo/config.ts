import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.kilo` of the config file, with its defaults. */
export const kiloSection = z
  .strictObject({
    enabled,
    apps: z.array(z.enum(['kilo', 'opencode'])).default(() => ['kilo' as const, 'opencode' as const]),
    dataDir: pathList.optional(),
    stateDir: pathList.optional(),
  })
  .prefault({});

export type KiloSection = z.output<typeof kiloSection>;

/** This provider's section of a loaded config. */
export const kiloConfig = (config: EffectiveConfig): KiloSection => kiloSection.parse(config.providers.kilo);
