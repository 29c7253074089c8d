import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled } from '../../config/sections.js';

/** `providers.codex` of the config file, with its defaults. */
export const codexSection = z.strictObject({ enabled }).prefault({});

export type CodexSection = z.output<typeof codexSection>;

/** This provider's section of a loaded config. */
export const codexConfig = (config: EffectiveConfig): CodexSection => config.providers.codex as CodexSection;
