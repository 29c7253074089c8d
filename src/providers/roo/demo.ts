import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { mkdir, writeFile } from '../../safety/fs/write.js';
import { demoShadowRepo, putStateRows, writeJson } from '../../engines/vscode-storage/sandbox.js';
import { KILO_LEGACY, ROO, type RooExtension } from './layout.js';
import { leaveGitGarbage } from '../../engines/git-garbage/sandbox.js';

/**
 * A Roo Code user's disk, with the conversations on a bigger disk (a custom storage path): a live
 * task, a deleted one whose repository stayed in global storage, a conversation no history names,
 * a task whose repository someone committed into; and the old Kilo Code extension, replaced by
 * Kilo Code 7, with a live legacy task it no longer reads and a deleted one; and the temporary pack
 * a killed git left in the live task's repository.
 */
export const rooSandbox: SandboxBuilder = {
  name: 'roo',
  async build(ctx: SandboxContext): Promise<void> {
    const code = path.join(ctx.home, '.config', 'Code');
    const stateDb = path.join(code, 'User', 'globalStorage', 'state.vscdb');
    const projects = path.join(ctx.root, 'projects');
    const game = path.join(projects, 'game');
    await writeJson(path.join(game, 'package.json'), { name: 'game' });
    const custom = path.join(ctx.home, 'roo-conversations');
    await writeFile(
      path.join(await made(path.join(code, 'User')), 'settings.json'),
      `{\n  // conversations on the bigger disk\n  "roo-cline.customStoragePath": ${JSON.stringify(custom)},\n}\n`,
    );

    const roo = storage(code, ROO);
    const live = item('0199b000-0000-7000-8000-000000000001', game);
    await writeJson(path.join(custom, 'tasks', live.id, 'history_item.json'), live);
    await writeJson(path.join(custom, 'tasks', live.id, 'api_conversation_history.json'), [
      { role: 'user', content: 'Add a level' },
    ]);
    await writeJson(path.join(custom, 'tasks', '_index.json'), {
      version: 1,
      updatedAt: 1790000000000,
      entries: [live],
    });
    await putStateRows(stateDb, { [ROO.id]: { taskHistory: [live], taskHistoryMigratedToFiles: true } });
    const liveRepo = await taskRepo(roo, ROO, live.id, game);
    // A checkpoint whose git add was killed mid-pack: the temporary pack it left in the live task's repository.
    await leaveGitGarbage(path.join(liveRepo, '.git'), 'Rr5Tz1', 2);
    // Deleted in Roo: its conversation went from the custom path, its repository stayed in global storage.
    await taskRepo(roo, ROO, '0199b000-0000-7000-8000-000000000002', game);
    await taskRepo(roo, ROO, '0199b000-0000-7000-8000-000000000003', game, ['wip: tried a physics engine']);
    await writeJson(path.join(custom, 'tasks', '0199b000-0000-7000-8000-000000000004', 'ui_messages.json'), [
      { ts: 1790000000000, type: 'say', say: 'text', text: 'Add sound' },
    ]);

    // The old Kilo Code extension, replaced by Kilo Code 7 under the same id.
    const kilo = storage(code, KILO_LEGACY);
    const legacy = item('0199a000-0000-7000-8000-000000000001', game);
    await putStateRows(stateDb, { [KILO_LEGACY.id]: { taskHistory: [legacy] } });
    await taskRepo(kilo, KILO_LEGACY, legacy.id, game);
    await taskRepo(kilo, KILO_LEGACY, '0199a000-0000-7000-8000-000000000002', game);
    await writeJson(path.join(ctx.home, '.vscode', 'extensions', 'extensions.json'), [
      { identifier: { id: KILO_LEGACY.id }, version: '7.2.1', relativeLocation: `${KILO_LEGACY.id}-7.2.1` },
    ]);

    for (const folder of [path.join(ctx.home, '.config'), path.join(ctx.home, '.vscode'), custom])
      await backdateTree(folder, ctx.old);
  },
};

const storage = (userData: string, extension: RooExtension): string =>
  path.join(userData, 'User', 'globalStorage', extension.id.toLowerCase());

function item(id: string, workspace: string): { id: string } & Record<string, unknown> {
  return {
    id,
    number: 1,
    ts: 1790000000000,
    task: 'Add a level',
    tokensIn: 900,
    tokensOut: 200,
    totalCost: 0.01,
    workspace,
    mode: 'code',
  };
}

async function taskRepo(
  gs: string,
  extension: RooExtension,
  id: string,
  worktree: string,
  extra: string[] = [],
): Promise<string> {
  return demoShadowRepo(path.join(gs, 'tasks', id, 'checkpoints'), {
    worktree,
    userName: extension.userName,
    userEmail: extension.userEmail,
    emptyTemplate: true,
    subjects: [`Task: ${id}, Time: 1790000000000`, ...extra],
  });
}

async function made(dir: string): Promise<string> {
  await mkdir(dir);
  return dir;
}
