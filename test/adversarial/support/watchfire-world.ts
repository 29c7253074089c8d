import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory, type Entry } from '../../helpers/inventory.js';
import { tempDir } from '../../helpers/temp.js';
import { writeProjects, type Machine } from '../../providers/watchfire/fixture.js';

/**
 * The smallest real Watchfire root for a CLI pass: a registry with no projects, so every session
 * home in it belongs to a deleted project and is proven dead; and an `outside` folder beside the
 * home that nothing may ever touch. Everything is three days old.
 */
export interface World extends Machine {
  outside: string;
  configFile: string;
  env: NodeJS.ProcessEnv;
  /** A dead session home `codex-home/<name>` with the given files (relative path → content). */
  session(name: string, files: Record<string, string | Buffer>): string;
  snapshot(): Map<string, Entry>;
  /** Relative inventory key of an absolute path. */
  key(p: string): string;
  age(): void;
}

export function world(options: { config?: Record<string, unknown> } = {}): World {
  const dir = tempDir('aj-adv-');
  const home = path.join(dir, 'home', 'ana');
  const root = path.join(home, '.watchfire');
  const runDir = path.join(dir, 'run');
  mkdirSync(root, { recursive: true });
  mkdirSync(runDir);
  const outside = path.join(dir, 'outside');
  put(path.join(outside, 'secret.txt'), 'must survive\n');
  put(path.join(outside, 'deep', 'nested', 'keep.txt'), 'must survive too\n');
  const m: Machine = { dir, home, root, runDir, reportDir: path.join(runDir, 'report') };
  writeProjects(m, []);
  const configFile = path.join(runDir, 'agent-janitor.yaml');
  writeFileSync(configFile, stringify({ homes: [home], minAge: '1h', reportDir: m.reportDir, ...options.config }));
  const w: World = {
    ...m,
    outside,
    configFile,
    env: { HOME: home, XDG_DATA_HOME: '', XDG_STATE_HOME: '', XDG_RUNTIME_DIR: '' },
    session(name, files) {
      const folder = path.join(root, 'codex-home', name);
      mkdirSync(folder, { recursive: true });
      for (const [relative, content] of Object.entries(files)) put(path.join(folder, relative), content);
      return folder;
    },
    snapshot: () => inventory(dir, { exclude: [runDir] }),
    key: (p) => path.relative(dir, p),
    age: () => backdate(dir, daysAgo(3)),
  };
  return w;
}

export function runArgs(w: World, extra: string[] = []): string[] {
  return ['run', '--config', w.configFile, '--json', '--log-level', 'warn', ...extra];
}
