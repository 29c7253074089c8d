import { createHash } from 'node:crypto';
import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { leaveGitGarbage } from '../../engines/git-garbage/sandbox.js';
import { writeJson } from '../../engines/vscode-storage/sandbox.js';
import { git } from '../../git/git.js';
import { mkdir, writeFile } from '../../safety/fs/write.js';
import { TOOLS, type GeminiTool } from './layout.js';

/**
 * A Gemini CLI and Qwen Code user's disk, checkpointing on: Gemini CLI's shadow repository of a
 * live project (with the temporary pack a killed git left in it) and of a project whose folder is
 * gone, each with its chats in `tmp/<slug>` and its entry in `projects.json`; and Qwen Code's
 * repository named by the sha256 of its project.
 */
export const geminiSandbox: SandboxBuilder = {
  name: 'gemini',
  async build(ctx: SandboxContext): Promise<void> {
    const projects = path.join(ctx.root, 'projects');
    const blog = path.join(projects, 'blog');
    await writeJson(path.join(blog, 'package.json'), { name: 'blog' });
    const gone = path.join(projects, 'old-prototype');

    const gemini = path.join(ctx.home, '.gemini');
    await writeJson(path.join(gemini, 'projects.json'), { projects: { [blog]: 'blog', [gone]: 'old-prototype' } });
    const live = await shadowRepository(path.join(gemini, 'history', 'blog'), 'gemini', blog);
    await leaveGitGarbage(path.join(live, '.git'), 'Gm4Kq9', 2);
    await chats(path.join(gemini, 'tmp', 'blog'), blog);
    // Its folder is gone (deleted, or on a volume not mounted now): no proof either way.
    await shadowRepository(path.join(gemini, 'history', 'old-prototype'), 'gemini', gone);
    await chats(path.join(gemini, 'tmp', 'old-prototype'), gone);

    const qwen = path.join(ctx.home, '.qwen');
    await shadowRepository(
      path.join(qwen, 'history', createHash('sha256').update(blog).digest('hex')),
      'qwen',
      blog,
      false,
    );
    for (const folder of [gemini, qwen]) await backdateTree(folder, ctx.old);
  },
};

/**
 * `history/<name>` as the tool makes it: its own `.gitconfig` with its identity, an empty
 * `.gitignore`, `.project_root` (Gemini CLI), and `git init` + `Initial commit` with the project as
 * the work tree (given on each command line, not in the repository's config).
 */
async function shadowRepository(
  folder: string,
  tool: GeminiTool,
  project: string,
  projectRoot = true,
): Promise<string> {
  await mkdir(folder);
  const { userName, userEmail } = TOOLS[tool];
  await writeFile(
    path.join(folder, '.gitconfig'),
    `[user]\n  name = ${userName}\n  email = ${userEmail}\n[commit]\n  gpgsign = false\n`,
  );
  await writeFile(path.join(folder, '.gitignore'), '');
  if (projectRoot) await writeFile(path.join(folder, '.project_root'), project);
  const env = {
    GIT_DIR: path.join(folder, '.git'),
    // An empty first commit reads no work tree; a project that is gone stands in as the folder itself.
    GIT_WORK_TREE: folder,
    // The tool points git at this .gitconfig as its global config; the same identity, given outright.
    GIT_AUTHOR_NAME: userName,
    GIT_AUTHOR_EMAIL: userEmail,
    GIT_COMMITTER_NAME: userName,
    GIT_COMMITTER_EMAIL: userEmail,
  };
  await git(['init', '-q', '--initial-branch', 'main'], { env });
  await git(['commit', '-q', '--allow-empty', '-m', 'Initial commit'], { env });
  return folder;
}

/**
 * `tmp/<slug>` with one chat session as Gemini CLI writes it (`chats/session-<start>-<id>.jsonl`,
 * one JSON record a line) from six weeks back: past Gemini CLI's own 30-day retention, which it
 * applies only to the project it starts in; the demo reports what that rule would remove.
 */
async function chats(tmp: string, project: string): Promise<void> {
  await writeFile(path.join(await made(tmp), '.project_root'), project);
  const start = new Date(Date.now() - 42 * 86_400_000).toISOString();
  const id = '3f2a9c1b-5d0e-4c7a-9b1e-2a6f0c8d4e71';
  const records = [
    {
      sessionId: id,
      projectHash: createHash('sha256').update(project).digest('hex'),
      startTime: start,
      lastUpdated: start,
      kind: 'main',
    },
    { id: 'a1', timestamp: start, type: 'user', content: [{ text: 'write the about page' }] },
    { $set: { lastUpdated: start } },
    { id: 'a2', timestamp: start, type: 'gemini', content: 'Done.', thoughts: [] },
    { $set: { lastUpdated: start } },
  ];
  await writeFile(
    path.join(
      await made(path.join(tmp, 'chats')),
      `session-${start.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`,
    ),
    records.map((record) => `${JSON.stringify(record)}\n`).join(''),
  );
  await made(path.join(tmp, 'logs'));
}

async function made(dir: string): Promise<string> {
  await mkdir(dir);
  return dir;
}
