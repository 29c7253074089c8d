import path from 'node:path';
import type { ProviderModule } from '../../provider-api/provider.js';
import { owlSection } from './config.js';
import { owlSandbox } from './demo.js';
import { owlDataDirs } from './layout.js';
import { owlGather } from './provider.js';
import { OWL_REASONS } from './reasons.js';
import { owlFootprint } from './footprint.js';

/** Coding Owl's job worktrees (README.md). */
export const owl: ProviderModule = {
  name: 'owl',
  section: owlSection,
  reasons: OWL_REASONS,
  sandbox: owlSandbox,
  claimedFolders: (ctx) =>
    owlDataDirs(ctx).flatMap((data) => [
      { owner: 'owl', folder: path.join(data, 'worktrees'), whose: "Coding Owl's job worktrees" },
      { owner: 'owl', folder: path.join(data, 'worktree-config'), whose: "Coding Owl's worktree configs" },
    ]),
  footprint: owlFootprint,
  ...owlGather,
};
