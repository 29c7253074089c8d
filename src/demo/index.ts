import { watchfireSandbox } from '../providers/watchfire/demo.js';
import { owlSandbox } from '../providers/owl/demo.js';
import { worktreesSandbox } from '../providers/worktrees/demo.js';
import { kiloSandbox } from '../providers/kilo/demo.js';
import { clineSandbox } from '../providers/cline/demo.js';
import { rooSandbox } from '../providers/roo/demo.js';
import type { SandboxBuilder } from './sandbox.js';

export type { SandboxBuilder, SandboxContext, SandboxExtras } from './sandbox.js';

// One import and one entry per provider's builder.
export function sandboxBuilders(): SandboxBuilder[] {
  return [watchfireSandbox, kiloSandbox, owlSandbox, worktreesSandbox, clineSandbox, rooSandbox];
}
