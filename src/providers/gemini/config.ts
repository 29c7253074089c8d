import * as z from 'zod';
import type { EffectiveConfig } from '../../config/schema.js';
import { enabled, pathList } from '../../config/sections.js';

/** `providers.gemini` of the config file, with its defaults. */
export const geminiSection = z
  .strictObject({
    enabled,
    tools: z.array(z.enum(['gemini', 'qwen'])).default(() => ['gemini' as const, 'qwen' as const]),
    dir: pathList.optional(),
    /** Gemini CLI's own chat retention, applied to every project (off: what it would remove is reported). */
    applyOwnerRetention: z.boolean().default(false),
  })
  .prefault({});

export type GeminiSection = z.output<typeof geminiSection>;

/** This provider's section of a loaded config. */
export const geminiConfig = (config: EffectiveConfig): GeminiSection => geminiSection.parse(config.providers.gemini);
