import path from 'node:path';
import type { ProviderModule } from '../../provider-api/provider.js';
import { geminiSection } from './config.js';
import { geminiSandbox } from './demo.js';
import { geminiLocations, toolLabel } from './layout.js';
import { geminiGather } from './provider.js';
import { GEMINI_REASONS } from './reasons.js';

/** Gemini CLI's and Qwen Code's checkpoint shadow repositories and project scratch (README.md). */
export const gemini: ProviderModule = {
  name: 'gemini',
  section: geminiSection,
  reasons: GEMINI_REASONS,
  sandbox: geminiSandbox,
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
  ...geminiGather,
};
