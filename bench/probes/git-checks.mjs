// The worktree engine's git checks (status, HEAD, containing refs, submodules) over every listed
// worktree, at the engine's own bounded concurrency.
import { readFileSync } from 'node:fs';
import { examineWorktrees } from '../../dist/engines/git-worktree/evidence.js';
import { GIT_CONCURRENCY } from '../../dist/git/settings.js';

const worktrees = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const started = performance.now();
const evidence = await examineWorktrees(worktrees);
const ms = performance.now() - started;
const failed = evidence.filter((entry) => entry.state !== 'linked' || entry.git === null);
if (failed.length > 0)
  throw new Error(`${failed.length} worktrees could not be examined: ${JSON.stringify(failed[0]).slice(0, 300)}`);
process.stdout.write(JSON.stringify({ worktrees: worktrees.length, concurrency: GIT_CONCURRENCY, ms }));
