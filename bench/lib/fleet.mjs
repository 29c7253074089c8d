import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { backdateTree, countEntries, ensureDir } from './files.mjs';
import { buildClineTemplate, buildClineUser } from './cline.mjs';
import { buildKiloUser, buildSnapshotTemplate } from './kilo.mjs';
import { buildWatchfireRoot } from './watchfire.mjs';
import { buildWorktrees } from './worktrees.mjs';

const DAY = 86_400_000;
/** Session homes per user home: a shared agent host has many users, each with many sessions. */
const HOMES_PER_USER = 200;

/**
 * Builds a fleet under `dir`: user homes `<dir>/home/uNN` with Watchfire session homes and Kilo
 * checkpoint repositories, Cline's checkpoint repositories in the first home, and vibe-kanban
 * worktrees under `<dir>/var/tmp`. Everything is ten days
 * old. Answers where everything is, which folders a pass must delete, and the config to run with.
 */
export function buildFleet(dir, size) {
  const old = new Date(Date.now() - 10 * DAY);
  const users = Math.max(1, Math.ceil(Math.max(size.homes, 1) / HOMES_PER_USER));
  const homes = Array.from({ length: users }, (_, u) => path.join(dir, 'home', `u${String(u).padStart(3, '0')}`));
  const fleet = {
    dir,
    old,
    homes,
    config: path.join(dir, 'agent-janitor.yaml'),
    /** The same config with the footprint turned off, for the footprint's cost. */
    configNoFootprint: path.join(dir, 'agent-janitor-no-footprint.yaml'),
    /** The same config without the newest providers (Copilot CLI, Goose), for what they cost. */
    configOlderProviders: path.join(dir, 'agent-janitor-older-providers.yaml'),
    /** Every folder du walks: the Watchfire roots, Kilo's snapshot folders, the worktree set and admin folders. */
    roots: [],
    /** The items a pass must delete (candidates), and every folder that goes with them (admin entries). */
    deadItems: [],
    dead: [],
    deadSessionHomes: [],
    sessionHomes: [],
    live: [],
    deadWorktrees: [],
    worktrees: [],
  };

  const watchfireRoots = [];
  homes.forEach((home, u) => {
    const count = share(size.homes, users, u);
    if (count === 0) return;
    const built = buildWatchfireRoot(home, `u${u}`, count, size.filesPerHome, u * 1_000_000);
    backdateTree(built.root, old);
    watchfireRoots.push(built.root);
    fleet.dead.push(...built.dead);
    fleet.deadItems.push(...built.dead);
    fleet.deadSessionHomes.push(...built.dead);
    fleet.sessionHomes.push(...built.dead, ...built.live);
    fleet.live.push(...built.live);
  });

  const kiloRoots = [];
  if (size.kilo > 0) {
    const template = buildSnapshotTemplate(path.join(dir, 'template'), size.kiloFiles);
    homes.forEach((home, u) => {
      const count = share(size.kilo, users, u);
      if (count === 0) return;
      const built = buildKiloUser(home, `u${u}`, count, template);
      backdateTree(built.snapshots, old);
      kiloRoots.push(built.snapshots);
      fleet.dead.push(...built.dead);
      fleet.deadItems.push(...built.dead);
      fleet.live.push(...built.live);
    });
    rmSync(path.join(dir, 'template'), { recursive: true });
  }

  let worktreeRoots = [];
  if (size.worktrees > 0) {
    const built = buildWorktrees(dir, homes, size.worktrees, size.worktreeFiles, old);
    worktreeRoots = [built.setRoot, ...built.admins];
    fleet.deadWorktrees = built.dead;
    fleet.dead.push(...built.dead.flatMap(({ worktree, admin }) => [worktree, admin]));
    fleet.deadItems.push(...built.dead.map(({ worktree }) => worktree));
    fleet.live.push(...built.live.map(({ worktree }) => worktree));
    fleet.worktrees = [...built.dead, ...built.live].map(({ worktree }) => worktree);
  }

  // Cline's repositories all in one home (a heavy Cline user), beside that home's other scratch.
  const clineRoots = [];
  if (size.cline > 0) {
    const template = buildClineTemplate(path.join(dir, 'cline-template'), size.clineFiles);
    const built = buildClineUser(homes[0], size.cline, template);
    backdateTree(path.join(homes[0], '.config'), old);
    clineRoots.push(built.storage);
    fleet.dead.push(...built.dead);
    fleet.deadItems.push(...built.dead);
    fleet.live.push(...built.live);
    rmSync(path.join(dir, 'cline-template'), { recursive: true });
  }

  fleet.roots = [...watchfireRoots, ...kiloRoots, ...worktreeRoots, ...clineRoots];
  fleet.watchfireRoots = watchfireRoots;
  fleet.entries = fleet.roots.reduce((sum, root) => sum + countEntries(root), 0);
  ensureDir(path.join(dir, 'reports'));
  ensureDir(path.join(dir, 'lists'));
  writeConfig(fleet);
  return fleet;
}

function share(total, parts, index) {
  return Math.floor(total / parts) + (index < total % parts ? 1 : 0);
}

function writeConfig(fleet) {
  const lines = [
    `homes: [${JSON.stringify(path.join(fleet.dir, 'home', '*'))}]`,
    'minAge: 1h',
    'processCheck: auto',
    'providers:',
    '  worktrees:',
    '    sets:',
    `      - { name: vibe-kanban, roots: [${JSON.stringify(path.join(fleet.dir, 'var', 'tmp', 'vibe-kanban', 'worktrees', '*'))}], idleAfter: 3d }`,
    // Claude Code's task output is looked for in a temp folder of the fleet's, never the machine's /tmp.
    '  claude-code:',
    `    tmpDir: [${JSON.stringify(path.join(fleet.dir, 'tmp'))}]`,
  ];
  ensureDir(path.join(fleet.dir, 'tmp'));
  writeFileSync(fleet.config, `${lines.join('\n')}\n`);
  writeFileSync(fleet.configNoFootprint, `${lines.join('\n')}\nfootprint: { enabled: false }\n`);
  const older = [...lines, '  copilot:', '    enabled: false', '  goose:', '    enabled: false'];
  writeFileSync(fleet.configOlderProviders, `${older.join('\n')}\n`);
}
