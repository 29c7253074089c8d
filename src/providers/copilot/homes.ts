import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import { realpathSync } from '../../safety/fs/stat.js';
import { placeInOurView } from '../../safety/identity/process-paths.js';
import { homeOwner } from '../../safety/owners/locations.js';
import type { ProcessRecord, ProcessTable } from '../../safety/processes/processes.js';
import { whose } from '../../safety/processes/user-names.js';
import { CONFIG_DIR_OPTION, copilotHomes, HOME_VARIABLE, type CopilotHome } from './layout.js';

/** The variables the pass's look at /proc keeps from every environment for this provider (rule 27). */
export const COPILOT_VARIABLES = [HOME_VARIABLE];

/** A Copilot CLI home the pass found, with how, and whose. */
export interface FoundHome extends CopilotHome {
  /** The uid of the home it was found in; null where that home has no owner to tell. */
  ownerUid: number | null;
  /** Why it cannot be read from here, where that is known before looking at it (a process in a container). */
  unreachable?: string;
}

/**
 * Every Copilot CLI home the pass can find: `~/.copilot` of each home, `$COPILOT_HOME` of the
 * pass's own home, and the home of each live Copilot process of a home's owner (its
 * `--config-dir`, else its `COPILOT_HOME`, else `~/.copilot`, as Copilot picks it). A Copilot
 * process whose environment cannot be read, or that runs in another mount namespace where its
 * home is another folder than here, has a home that cannot be read from here.
 */
export function foundCopilotHomes(ctx: Pick<GatherContext, 'homes' | 'env' | 'processes'>): FoundHome[] {
  const found = new Map<string, FoundHome>();
  // One entry per folder; a home that cannot be read from here is one per process that names it.
  const add = (home: CopilotHome, ownerUid: number | null, unreachable?: { by: string; why: string }): void => {
    const key = unreachable === undefined ? canonical(home.dir) : `\0${unreachable.by}`;
    if (found.has(key)) return;
    found.set(key, { ...home, ownerUid, ...(unreachable === undefined ? {} : { unreachable: unreachable.why }) });
  };
  for (const home of copilotHomes(ctx)) add(home, homeOwner(home.home)?.uid ?? null);
  const ownNamespace = ctx.processes.mounts?.namespaces.find((each) => each.ours)?.namespace ?? null;
  for (const given of ctx.homes) {
    const home = path.resolve(given);
    const owner = homeOwner(home);
    if (!owner) continue;
    for (const record of copilotProcesses(ctx.processes, owner.uid)) {
      const who = `process ${record.pid} (${base(record.argv?.[0]) || record.command}) of ${whose(owner.uid)}`;
      if (record.vars === null) {
        const why = `its environment cannot be read (${record.environError ?? 'no reason given'}), so where its ${HOME_VARIABLE} is cannot be told`;
        add({ home, dir: home, basis: { home } }, owner.uid, { by: who, why: `${who} runs Copilot CLI, and ${why}` });
        continue;
      }
      const dir = homeOf(record) ?? path.join(home, '.copilot');
      const reached = reach(ctx.processes.procRoot, record, dir, ownNamespace);
      if (reached === 'nothing') continue;
      if (reached !== 'here') {
        add({ home, dir, basis: { home } }, owner.uid, { by: who, why: `${who} runs Copilot CLI, and ${reached.why}` });
        continue;
      }
      add({ home, dir, basis: { home } }, owner.uid);
    }
  }
  return [...found.values()];
}

/** The processes of `uid` that run Copilot CLI or carry its home. */
function copilotProcesses(table: ProcessTable, uid: number): ProcessRecord[] {
  return [...table.records.values()]
    .filter((record) => record.uid === uid && (runsCopilot(record) || Boolean(record.vars?.[HOME_VARIABLE])))
    .sort((a, b) => a.pid - b.pid);
}

const base = (file: string | null | undefined): string => (file ? path.basename(file) : '');

/**
 * Copilot CLI: the native `copilot` of `@github/copilot-<platform>`, or Node running the npm
 * package's launcher (which starts the native one when it can).
 */
function runsCopilot(record: Pick<ProcessRecord, 'exe' | 'argv'>): boolean {
  if (base(record.exe) === 'copilot' || base(record.argv?.[0]) === 'copilot') return true;
  const script = record.argv?.[1] ?? '';
  return /^node/.test(base(record.argv?.[0])) && (base(script) === 'copilot' || /@github\/copilot\//.test(script));
}

/** The home a Copilot process named: its `--config-dir`, else its `COPILOT_HOME`, read from its working directory. */
function homeOf(record: ProcessRecord): string | null {
  const argv = record.argv ?? [];
  for (const [index, arg] of argv.entries()) {
    const value =
      arg === CONFIG_DIR_OPTION ? argv[index + 1] : arg.startsWith(`${CONFIG_DIR_OPTION}=`) ? arg.slice(13) : null;
    // `~/…` is the process's home, which the pass cannot tell apart from the one it was found in.
    if (value && !value.startsWith('~')) return path.resolve(record.cwd, value);
  }
  const named = record.vars?.[HOME_VARIABLE];
  return named ? path.resolve(record.cwd, named) : null;
}

/**
 * Whether a Copilot process's home can be read from the pass's view (`here`), is nothing where
 * the process runs, or cannot be read (why): a process in another mount namespace (a container)
 * has it here only when the same path leads to the same folder in both views.
 */
function reach(
  procRoot: string,
  record: ProcessRecord,
  dir: string,
  ownNamespace: string | null,
): 'here' | 'nothing' | { why: string } {
  if (record.mountNamespace === null || ownNamespace === null || record.mountNamespace === ownNamespace) return 'here';
  const placed = placeInOurView(procRoot, record.pid, dir, record.cwd);
  if (placed.state === 'found') return 'here';
  if (placed.state === 'absent') return 'nothing';
  return {
    why: `it runs in another mount namespace (${record.mountNamespace}), where ${dir} is not the folder the pass reaches by that path`,
  };
}

/** One folder however it is spelled (a home reached through a link); as named where it cannot be resolved. */
function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
