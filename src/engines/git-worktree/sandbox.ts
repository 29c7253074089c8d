import path from 'node:path';
import { git } from '../../git/git.js';
import { mkdir, writeFile } from '../../safety/fs/write.js';

// Sandboxes commit as a made-up person, never as whoever runs the demo.
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Demo Person',
  GIT_AUTHOR_EMAIL: 'demo@example.invalid',
  GIT_COMMITTER_NAME: 'Demo Person',
  GIT_COMMITTER_EMAIL: 'demo@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs git for a sandbox builder (same safe environment as every other git call). */
export function sandboxGit(cwd: string, ...args: string[]): Promise<string> {
  return git(['-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd, env: IDENTITY });
}

export async function writeSandboxFile(file: string, content: string): Promise<string> {
  await mkdir(path.dirname(file), 0o755);
  await writeFile(file, content);
  return file;
}

/** A repository on `main` with a README, a .gitignore for `*.log`, and one commit. */
export async function sandboxRepo(dir: string): Promise<string> {
  await writeSandboxFile(path.join(dir, 'README.md'), `# ${path.basename(dir)}\n`);
  await writeSandboxFile(path.join(dir, '.gitignore'), '*.log\nnode_modules/\n');
  await sandboxGit(dir, 'init', '-q');
  await sandboxGit(dir, 'add', '.');
  await sandboxGit(dir, 'commit', '-q', '-m', 'Initial commit');
  return dir;
}

export async function sandboxCommit(worktree: string, file: string, content: string, message: string): Promise<string> {
  await writeSandboxFile(path.join(worktree, file), content);
  await sandboxGit(worktree, 'add', file);
  await sandboxGit(worktree, 'commit', '-q', '-m', message);
  return (await sandboxGit(worktree, 'rev-parse', 'HEAD')).trim();
}
