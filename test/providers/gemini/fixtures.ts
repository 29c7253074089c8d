import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PassResult } from '../../../src/pass/pass.js';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { git } from '../kilo/fixtures.js';

/**
 * Gemini CLI's and Qwen Code's folders as the real CLIs write them (Gemini CLI 0.61.0 and Qwen Code
 * 0.15.10, checked by real-cli.slow.test.ts): `history/<name>/` with `.git/`, the tool's own
 * `.gitconfig`, an empty `.gitignore`, `.project_root` (Gemini CLI; also `.gitconfig_system_empty`)
 * and an `Initial commit` made with the project as the work tree (given on the command line, not
 * in the config); `tmp/<slug>/` with `.project_root`, `chats/`, `logs/`; `projects.json`.
 */
const IDENTITY = {
  gemini: { name: 'Gemini CLI', email: 'gemini-cli@google.com' },
  qwen: { name: 'Qwen Code', email: 'qwen-code@qwen.ai' },
} as const;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface GeminiScene {
  root: string;
  home: string;
  gemini: string;
  qwen: string;
  projects: string;
  work: string;
}

export function geminiScene(): GeminiScene {
  const root = tempDir('aj-gemini-');
  const home = path.join(root, 'home');
  const projects = path.join(root, 'projects');
  mkdirSync(projects, { recursive: true });
  return {
    root,
    home,
    gemini: path.join(home, '.gemini'),
    qwen: path.join(home, '.qwen'),
    projects,
    work: tempDir('aj-gemini-run-'),
  };
}

/** A user's project: a git repository with one commit. */
export function project(s: GeminiScene, name: string): string {
  const dir = path.join(s.projects, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'README.md'), `# ${name}\n`);
  git(['init', '-q', '-b', 'main', dir]);
  git(['-C', dir, 'add', '-A']);
  git(['-C', dir, 'commit', '-q', '-m', 'first']);
  return dir;
}

/** `history/<name>` as the tool makes it, its first commit taken of the project's files. */
export function shadowRepo(
  toolDir: string,
  tool: 'gemini' | 'qwen',
  name: string,
  projectRoot: string,
  options: { identity?: { name: string; email: string } } = {},
): string {
  const folder = path.join(toolDir, 'history', name);
  mkdirSync(folder, { recursive: true });
  const identity = options.identity ?? IDENTITY[tool];
  writeFileSync(
    path.join(folder, '.gitconfig'),
    `[user]\n  name = ${identity.name}\n  email = ${identity.email}\n[commit]\n  gpgsign = false\n`,
  );
  writeFileSync(path.join(folder, '.gitignore'), '');
  if (tool === 'gemini') {
    writeFileSync(path.join(folder, '.gitconfig_system_empty'), '');
    writeFileSync(path.join(folder, '.project_root'), projectRoot);
  }
  const env = {
    GIT_DIR: path.join(folder, '.git'),
    GIT_WORK_TREE: projectRoot,
    GIT_CONFIG_GLOBAL: path.join(folder, '.gitconfig'),
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
  git(['init', '-q', '--initial-branch', 'main'], { env });
  git(['add', '-A'], { env });
  git(['commit', '-q', '--allow-empty', '-m', 'Initial commit'], { env });
  return folder;
}

/** `tmp/<slug>` of Gemini CLI: `.project_root`, a chat, logs. */
export function scratch(toolDir: string, slug: string, projectRoot: string): string {
  const dir = path.join(toolDir, 'tmp', slug);
  mkdirSync(path.join(dir, 'chats'), { recursive: true });
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  writeFileSync(path.join(dir, '.project_root'), projectRoot);
  writeFileSync(
    path.join(dir, 'chats', 'session-2026-12-01T09-14-3f2a9c1b.jsonl'),
    `${JSON.stringify({ type: 'user', content: 'write hello' })}\n`,
  );
  return dir;
}

export function writeRegistry(toolDir: string, projects: Record<string, string>): string {
  const file = path.join(toolDir, 'projects.json');
  mkdirSync(toolDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ projects }, null, 2));
  return file;
}

export function settle(s: GeminiScene): void {
  backdate(s.root, daysAgo(2));
}

export function runGemini(
  s: GeminiScene,
  options: { reportOnly?: boolean; minAge?: string } = {},
): Promise<PassResult> {
  return pass({
    dir: s.work,
    config: { homes: [s.home], minAge: options.minAge ?? '0s' },
    only: ['gemini'],
    reportOnly: options.reportOnly ?? false,
    env: { HOME: '/nonexistent-home' },
  });
}
