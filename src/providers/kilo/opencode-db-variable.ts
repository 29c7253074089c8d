import path from 'node:path';
import { processPathIs } from '../../safety/identity/process-paths.js';
import { identityOf } from '../../safety/identity/recorded.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import type { ProcessRecord, ProcessTable } from '../../safety/processes/processes.js';

/** The variable opencode names its database with (relative to its data folder, or `:memory:`). */
export const OPENCODE_DB = 'OPENCODE_DB';

/**
 * Why the sessions of `dataDir` may live in a database this pass did not read, or null when no
 * live process says so (rule 27). A process counts when it carries `OPENCODE_DB` (opencode itself,
 * or a shell that starts it) and its data folder is this one, by identity as it sees it (rule 25),
 * or cannot be told to be another; unless the variable names, as it sees it, one of the databases
 * read. An opencode whose environment cannot be read may carry it too. Processes that cannot be
 * seen leave it unknown.
 */
export function anotherDatabase(
  processes: ProcessTable,
  dataDir: string,
  databasesRead: readonly string[],
): string | null {
  if (!processes.visible)
    return `processes cannot be seen (${processes.why ?? processes.blindBecause ?? 'unknown'}), so whether a live opencode keeps its sessions in another database (OPENCODE_DB) cannot be told`;
  const folder = identityOf(dataDir);
  const read = databasesRead.flatMap((file) => {
    const identity = identityOf(file);
    return identity ? [identity] : [];
  });
  const naming: Array<{ pid: number; why: string }> = [];
  for (const record of [...processes.records.values()].sort((a, b) => a.pid - b.pid)) {
    const why = namesAnother(processes.procRoot, record, folder, read);
    if (why) naming.push({ pid: record.pid, why });
  }
  const [first] = naming;
  if (!first) return null;
  const who = nameProcesses(describeProcesses(processes.procRoot, [first.pid]), naming.length);
  return `${who} ${first.why}`;
}

function namesAnother(
  procRoot: string,
  record: ProcessRecord,
  folder: ReturnType<typeof identityOf>,
  read: ReadonlyArray<NonNullable<ReturnType<typeof identityOf>>>,
): string | null {
  if (record.vars === null)
    return runsOpencode(record)
      ? `runs opencode, and its environment cannot be read (${record.environError ?? 'no reason given'}), so which database it uses cannot be told`
      : null;
  const named = record.vars[OPENCODE_DB];
  // opencode takes an empty value for none.
  if (named === undefined || named === '') return null;
  const data = dataFolderOf(record.vars);
  if (data !== null && folder !== null && processPathIs(procRoot, record.pid, data, folder) === false) return null;
  const carries = `carries OPENCODE_DB=${named}`;
  if (named === ':memory:') return `${carries}: its sessions live in memory, and their diffs in this data folder`;
  if (data === null && !path.isAbsolute(named))
    return `${carries}, relative to a data folder its environment does not name`;
  const spelled = path.isAbsolute(named) ? named : path.join(data as string, named);
  if (read.some((identity) => processPathIs(procRoot, record.pid, spelled, identity) === true)) return null;
  return `${carries}, a database this pass did not read (${spelled} as it sees it)`;
}

/**
 * opencode's data folder as a process's environment names it (xdg-basedir: `$XDG_DATA_HOME` as it
 * is, else `$HOME/.local/share`; a relative one from its working directory), or null where it
 * falls back to the passwd database.
 */
function dataFolderOf(vars: Readonly<Record<string, string>>): string | null {
  const { XDG_DATA_HOME: xdg, HOME: home } = vars;
  if (xdg) return path.join(xdg, 'opencode');
  if (home) return path.join(home, '.local', 'share', 'opencode');
  return null;
}

/** opencode's executable (`opencode`, the npm launcher's `.opencode`), by its file or `argv[0]`. */
function runsOpencode(record: ProcessRecord): boolean {
  return [record.exe, record.argv?.[0], record.argv?.[1]].some(
    (each) => each !== null && each !== undefined && ['opencode', '.opencode'].includes(path.basename(each)),
  );
}
