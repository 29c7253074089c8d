import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.watchfire` of the config file, with its defaults. */
export const watchfireSection = z.strictObject({ enabled, root: pathList.optional() }).prefault({});

export type WatchfireSection = z.output<typeof watchfireSection>;

/** This provider's section of a loaded config. */
export const watchfireConfig = (config: EffectiveConfig): WatchfireSection =>
  watchfireSection.parse(config.providers.watchfire);
