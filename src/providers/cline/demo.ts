import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { mkdir, writeFile } from '../../safety/fs/write.js';
import { removeTree } from '../../safety/removal/remove.js';
import { demoShadowRepo, putStateRows, writeJson } from '../../engines/vscode-storage/sandbox.js';
import { CLINE_EXTENSION, CLINE_USER_EMAILS, CLINE_USER_NAME, hashWorkingDir } from './layout.js';
import { openSqlite } from '../../util/sqlite.js';
import { leaveGitGarbage } from '../../engines/git-garbage/sandbox.js';

/**
 * A Cline user's disk: VS Code with Cline 3 (a live task's repository, one a deleted task left
 * behind, one with a commit of the user's, an orphan conversation, a per-task repository of Cline
 * 3.4, an interrupted deletion), Cursor with Cline 4 installed (a repository it no longer reads),
 * and the CLI's data folder (a dead repository, and one its lock holds); and the temporary pack a
 * killed git left in the live repository.
 */
export const clineSandbox: SandboxBuilder = {
  name: 'cline',
  async build(ctx: SandboxContext): Promise<void> {
    const projects = path.join(ctx.root, 'projects');
    const project = async (name: string) => {
      const dir = path.join(projects, name);
      await writeJson(path.join(dir, 'package.json'), { name });
      return dir;
    };
    const shop = await project('shop');
    const landing = path.join(projects, 'landing-page');
    const api = await project('api');

    // VS Code with Cline 3.89.
    const code = path.join(ctx.home, '.config', 'Code');
    const gs = path.join(code, 'User', 'globalStorage', CLINE_EXTENSION);
    await mkdir(gs);
    await putStateRows(path.join(code, 'User', 'globalStorage', 'state.vscdb'), {
      [CLINE_EXTENSION]: { clineVersion: '3.89.2', welcomeViewCompleted: true },
    });
    await writeJson(path.join(gs, 'state', 'taskHistory.json'), [item('1790000000001', shop)]);
    await conversation(gs, '1790000000001');
    const live = await workspaceRepo(gs, shop, ['1790000000001']);
    // A checkpoint whose git add was killed mid-pack: the temporary pack it left in the live repository.
    await leaveGitGarbage(path.join(live, '.git'), 'Lm3Nb8', 2);
    // Deleted in Cline: the history entry and the conversation went, settings.json and the repository stayed.
    await writeJson(path.join(gs, 'tasks', '1790000000002', 'settings.json'), { yoloModeToggled: false });
    await workspaceRepo(gs, landing, ['1790000000002']);
    removeTree(landing);
    await workspaceRepo(gs, api, ['1790000000003'], ['my own snapshot before the refactor']);
    // A conversation whose history entry was lost.
    await conversation(gs, '1790000000005');
    // Cline 3.4 kept one repository per task; this task was deleted long ago.
    await writeJson(path.join(gs, 'tasks', '1738000000000', 'settings.json'), {});
    await demoShadowRepo(path.join(gs, 'tasks', '1738000000000', 'checkpoints'), {
      worktree: shop,
      userName: CLINE_USER_NAME,
      userEmail: 'noreply@example.com',
      emptyTemplate: false,
      subjects: ['checkpoint'],
    });
    const quarantine = path.join(
      gs,
      'checkpoints',
      '.1122334455.cleanup-3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
      '.git',
      'objects',
      'pack',
    );
    await mkdir(quarantine);
    await writeFile(path.join(quarantine, 'pack-half.pack'), 'x'.repeat(8192));

    // Cursor with Cline 4, which no longer reads checkpoints/.
    const cursor = path.join(ctx.home, '.config', 'Cursor');
    const cursorGs = path.join(cursor, 'User', 'globalStorage', CLINE_EXTENSION);
    await mkdir(cursorGs);
    await putStateRows(path.join(cursor, 'User', 'globalStorage', 'state.vscdb'), {
      [CLINE_EXTENSION]: { taskHistory: [item('1780000000001', api)] },
    });
    await workspaceRepo(cursorGs, api, ['1780000000001']);
    await writeJson(path.join(ctx.home, '.cursor', 'extensions', 'extensions.json'), [
      { identifier: { id: CLINE_EXTENSION }, version: '4.1.13', relativeLocation: `${CLINE_EXTENSION}-4.1.13` },
    ]);

    // The Cline CLI's data folder: its lock database holds one repository while a commit runs.
    const data = path.join(ctx.home, '.cline', 'data');
    await writeJson(path.join(data, 'globalState.json'), { actModeApiProvider: 'openai' });
    await writeJson(path.join(data, 'state', 'taskHistory.json'), []);
    const scripts = await project('scripts');
    await workspaceRepo(data, scripts, ['1790000000010']);
    const busy = await project('busy');
    await workspaceRepo(data, busy, ['1790000000011']);
    const locks = openSqlite(path.join(data, 'locks.db'));
    try {
      locks.exec(
        "CREATE TABLE locks (id INTEGER PRIMARY KEY, held_by TEXT NOT NULL, lock_type TEXT NOT NULL CHECK (lock_type IN ('file', 'instance', 'folder')), lock_target TEXT NOT NULL, locked_at INTEGER NOT NULL, UNIQUE(lock_type, lock_target))",
      );
      locks
        .prepare('INSERT INTO locks (held_by, lock_type, lock_target, locked_at) VALUES (?, ?, ?, ?)')
        .run('1790000000011', 'folder', `~/.cline/data/checkpoints/${hashWorkingDir(busy)}`, Date.now());
    } finally {
      locks.close();
    }

    for (const folder of [
      path.join(ctx.home, '.config'),
      path.join(ctx.home, '.cursor'),
      path.join(ctx.home, '.cline'),
    ])
      await backdateTree(folder, ctx.old);
  },
};

function item(id: string, cwd: string): Record<string, unknown> {
  return {
    id,
    ts: Number(id),
    task: 'Add a cart total',
    tokensIn: 1200,
    tokensOut: 300,
    totalCost: 0.01,
    size: 20480,
    shadowGitConfigWorkTree: cwd,
    cwdOnTaskInitialization: cwd,
    isFavorited: false,
  };
}

async function conversation(gs: string, id: string): Promise<void> {
  const dir = path.join(gs, 'tasks', id);
  await writeJson(path.join(dir, 'api_conversation_history.json'), [{ role: 'user', content: 'Add a cart total' }]);
  await writeJson(path.join(dir, 'ui_messages.json'), [
    { ts: Number(id), type: 'say', say: 'task', text: 'Add a cart total' },
  ]);
  await writeJson(path.join(dir, 'task_metadata.json'), {
    files_in_context: [],
    model_usage: [],
    environment_history: [],
  });
}

async function workspaceRepo(
  storage: string,
  worktree: string,
  tasks: string[],
  extra: string[] = [],
): Promise<string> {
  const hash = hashWorkingDir(worktree);
  return demoShadowRepo(path.join(storage, 'checkpoints', hash), {
    worktree,
    userName: CLINE_USER_NAME,
    userEmail: CLINE_USER_EMAILS[0] as string,
    emptyTemplate: false,
    subjects: [...tasks.map((task) => `checkpoint-${hash}-${task}`), ...extra],
  });
}
