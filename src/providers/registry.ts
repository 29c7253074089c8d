import { mergeReasonTables, SAFETY_REASONS } from '../model/reasons.js';
import type { ReasonTable } from '../model/types.js';
import type { ProviderModule } from '../provider-api/provider.js';
import type { ProviderName } from '../model/types.js';
import { watchfire } from './watchfire/index.js';
import { kilo } from './kilo/index.js';
import { owl } from './owl/index.js';
import { worktrees } from './worktrees/index.js';
import { cline } from './cline/index.js';
import { roo } from './roo/index.js';
import { claudeCode } from './claude-code/index.js';
import { gemini } from './gemini/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { goose } from './goose/index.js';

/**
 * Every provider, in the order a pass runs them: one line each. A provider is one folder,
 * src/providers/<name>/, whose index.ts says all the rest (its config section, reason codes,
 * demo sandbox, and what it tells the other providers).
 */
export const PROVIDERS: readonly ProviderModule[] = [
  watchfire,
  kilo,
  owl,
  worktrees,
  cline,
  roo,
  claudeCode,
  gemini,
  codex,
  copilot,
  goose,
];

export const PROVIDER_NAMES: readonly ProviderName[] = PROVIDERS.map((provider) => provider.name);

/** Every reason code an item of the report can carry: the safety engine's, then each provider's. */
export const REASONS: ReasonTable = mergeReasonTables([SAFETY_REASONS, ...PROVIDERS.map((p) => p.reasons)]);
