import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import { basisOf } from '../../safety/owners/location-basis.js';
import { homeOwner } from '../../safety/owners/locations.js';
import type { ProcessRecord, ProcessTable } from '../../safety/processes/processes.js';
import { passwdHome, whose } from '../../safety/processes/user-names.js';
import { placeInOurView } from '../../safety/identity/process-paths.js';
import { codexConfig } from './config.js';
import type { CodexHome } from './layout.js';

/** The variables Codex names its state with: the pass's look at /proc keeps them from every environment. */
export const CODEX_VARIABLES = ['CODEX_HOME', 'CODEX_SQLITE_HOME'];

/**
 * A Codex home the pass found, read as a source of truth on the app's worktrees (rule 27): several
 * homes may share one worktree root (a work profile with `CODEX_HOME=~/.codex-work`).
 */
export interface FoundHome extends CodexHome {
  /** Whose it is, where that can be told: a home of another uid never owns this owner's worktrees. */
  ownerUid: number | null;
  /** Each `$CODEX_SQLITE_HOME` it was found with; null where none was given (Codex's default). */
  sqliteHomes: Array<string | null>;
  /** How the pass found it, in words. */
  foundBy: string[];
  /** Why it cannot be read from here, where that is known before looking at it. */
  unreachable?: string;
}

type Finding = Pick<FoundHome, 'home' | 'basis' | 'ownerUid'>;

/**
 * Every Codex home the pass can find: `~/.codex` of each home; `$CODEX_HOME` of the pass's own
 * home; the `CODEX_HOME` (and `CODEX_SQLITE_HOME`) of each live Codex process of a home's owner;
 * each home `providers.codex.homes` names. A Codex process is one whose executable or `argv[0]`
 * is `codex` (or Node running the npm launcher `codex.js`), or that carries `CODEX_HOME` (a shell
 * a profile was started from). One whose environment cannot be read, or that runs in another
 * mount namespace where its home's path names another folder than here, has a home that cannot be
 * read from here.
 */
export function foundCodexHomes(ctx: Pick<GatherContext, 'homes' | 'env' | 'config' | 'processes'>): FoundHome[] {
  const found = new Map<string, FoundHome>();
  const add = (key: string, codexHome: string, finding: Finding, by: string, sqliteHome: string | null) => {
    const known = found.get(key);
    if (known) {
      if (!known.foundBy.includes(by)) known.foundBy.push(by);
      if (!known.sqliteHomes.includes(sqliteHome)) known.sqliteHomes.push(sqliteHome);
      return known;
    }
    const home: FoundHome = { ...finding, codexHome, own: false, sqliteHomes: [sqliteHome], foundBy: [by] };
    found.set(key, home);
    return home;
  };
  const ownNamespace = ctx.processes.mounts?.namespaces.find((each) => each.ours)?.namespace ?? null;
  for (const given of ctx.homes) {
    const home = path.resolve(given);
    const owner = homeOwner(home);
    const finding: Finding = { home, basis: { home }, ownerUid: owner?.uid ?? null };
    const own = Boolean(ctx.env.HOME) && path.resolve(ctx.env.HOME as string) === home;
    const named = own ? absolute(ctx.env.CODEX_HOME) : null;
    const sqlite = own ? absolute(ctx.env.CODEX_SQLITE_HOME) : null;
    add(path.join(home, '.codex'), path.join(home, '.codex'), finding, '~/.codex', named ? null : sqlite);
    if (named) add(named, named, finding, '$CODEX_HOME of this pass', sqlite);
    if (owner)
      for (const record of codexProcesses(ctx.processes, owner.uid)) {
        const who = `process ${record.pid} (${record.command}) of ${whose(owner.uid)}`;
        const codexHome = processPath(record.vars?.CODEX_HOME, record) ?? path.join(home, '.codex');
        const reached = reach(record, codexHome, ownNamespace, ctx.processes.procRoot);
        if (reached === 'nothing') continue;
        if (reached !== 'here') {
          add(`\0${record.pid}`, codexHome, finding, who, null).unreachable = `${who} runs Codex, and ${reached.why}`;
          continue;
        }
        add(
          codexHome,
          codexHome,
          finding,
          `the environment of ${who}`,
          processPath(record.vars?.CODEX_SQLITE_HOME, record),
        );
      }
  }
  for (const named of codexConfig(ctx.config).homes ?? []) {
    const codexHome = path.resolve(named);
    const basis = basisOf(codexHome, ctx.homes);
    const ownerUid = 'home' in basis ? (homeOwner(basis.home)?.uid ?? null) : ownerOfNamed(codexHome);
    const home = 'home' in basis ? basis.home : ((ownerUid !== null ? passwdHome(ownerUid) : null) ?? '/');
    add(codexHome, codexHome, { home, basis, ownerUid }, 'providers.codex.homes', null);
  }
  return [...found.values()];
}

/** The processes of `uid` that run Codex or carry its home. */
function codexProcesses(table: ProcessTable, uid: number): ProcessRecord[] {
  return [...table.records.values()]
    .filter((record) => record.uid === uid && (runsCodex(record) || Boolean(record.vars?.CODEX_HOME)))
    .sort((a, b) => a.pid - b.pid);
}

const base = (file: string | null | undefined): string => (file ? path.basename(file) : '');

function runsCodex(record: ProcessRecord): boolean {
  if (base(record.exe) === 'codex' || base(record.argv?.[0]) === 'codex') return true;
  // The npm package's launcher: `node …/@openai/codex/bin/codex.js`, which starts the executable.
  return /^node/.test(base(record.argv?.[0])) && ['codex', 'codex.js'].includes(base(record.argv?.[1]));
}

/**
 * Whether a Codex process's home can be read from the pass's view (`here`), is nothing where the
 * process runs, or cannot be read (why): a process in another mount namespace (a container, a
 * sandbox) has it here only when the same path leads to the same folder in both views.
 */
function reach(
  record: ProcessRecord,
  codexHome: string,
  ownNamespace: string | null,
  procRoot: string,
): 'here' | 'nothing' | { why: string } {
  if (record.vars === null)
    return {
      why: `its environment cannot be read (${record.environError ?? 'no reason given'}), so where its CODEX_HOME is cannot be told`,
    };
  if (record.mountNamespace === null || ownNamespace === null || record.mountNamespace === ownNamespace) return 'here';
  const home = sameHere(procRoot, record, codexHome);
  // No such folder where it runs: it has no Codex home to read.
  if (home === 'missing') return 'nothing';
  const sqliteHome = processPath(record.vars.CODEX_SQLITE_HOME, record);
  const sqlite = sqliteHome === null ? 'same' : sameHere(procRoot, record, sqliteHome);
  const elsewhere = home !== 'same' ? codexHome : sqlite === 'other' ? sqliteHome : null;
  if (elsewhere === null) return 'here';
  return {
    why: `it runs in another mount namespace (${record.mountNamespace}), where ${elsewhere} is not the folder the pass reaches by that path`,
  };
}

/** Whether a path a process names in its own view leads to the same folder in the pass's, or to nothing there. */
function sameHere(procRoot: string, record: ProcessRecord, named: string): 'same' | 'missing' | 'other' {
  const placed = placeInOurView(procRoot, record.pid, named, record.cwd);
  return placed.state === 'found' ? 'same' : placed.state === 'absent' ? 'missing' : 'other';
}

/** A path of a process's environment: a relative one is read from its working directory, as Codex reads it. */
function processPath(value: string | undefined, record: ProcessRecord): string | null {
  if (!value) return null;
  return path.resolve(record.cwd, value);
}

const absolute = (value: string | undefined): string | null =>
  value && path.isAbsolute(value) ? path.resolve(value) : null;

/** Whose a home the config names outside every home is: its own entry's (a link's, where it is one). */
function ownerOfNamed(codexHome: string): number | null {
  try {
    return lstatOrNullSync(codexHome)?.uid ?? null;
  } catch {
    return null;
  }
}
