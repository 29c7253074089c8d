import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled } from '../../config/sections.js';

/** `providers.copilot` of the config file, with its defaults. */
export const copilotSection = z.strictObject({ enabled }).prefault({});

type CopilotSection = z.output<typeof copilotSection>;

/** This provider's section of a loaded config. */
export const copilotConfig = (config: EffectiveConfig): CopilotSection =>
  copilotSection.parse(config.providers.copilot);
