import path from 'node:path';
import type { ProviderModule } from '../../provider-api/provider.js';
import { geminiSection } from './config.js';
import { geminiSandbox } from './demo.js';
import { GEMINI_MARK_VARIABLE, geminiLocations, toolLabel } from './layout.js';
import { geminiGather } from './provider.js';
import { GEMINI_REASONS } from './reasons.js';
import { SYSTEM_DEFAULTS_VARIABLE, SYSTEM_SETTINGS_VARIABLE } from './settings.js';
import { geminiFootprint } from './footprint.js';

/** Gemini CLI's and Qwen Code's checkpoint shadow repositories and project scratch (README.md). */
export const gemini: ProviderModule = {
  name: 'gemini',
  section: geminiSection,
  reasons: GEMINI_REASONS,
  sandbox: geminiSandbox,
  // Where a running Gemini CLI reads its system settings, and what marks the processes it starts.
  processVariables: [GEMINI_MARK_VARIABLE, SYSTEM_SETTINGS_VARIABLE, SYSTEM_DEFAULTS_VARIABLE],
  claimedFolders: (ctx) =>
    geminiLocations(ctx).flatMap((location) => [
      {
        owner: 'gemini',
        folder: path.join(location.dir, 'history'),
        whose: `${toolLabel(location.tool)}'s shadow repositories`,
      },
      {
        owner: 'gemini',
        folder: path.join(location.dir, 'tmp'),
        whose: `${toolLabel(location.tool)}'s project scratch`,
      },
    ]),
  footprint: geminiFootprint,
  ...geminiGather,
};
