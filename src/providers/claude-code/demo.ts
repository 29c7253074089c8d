import type { SandboxBuilder } from '../../core/sandbox.js';

export const claudeCodeSandbox: SandboxBuilder = {
  name: 'claude-code',
  async build(): Promise<void> {},
};
