import path from 'node:path';
import { UsageError, errorCode } from '../../model/errors.js';
import { fileSystemType, folderAccessOrWhy, lstatOrNull, readlinkSync, statOrNull } from '../fs/stat.js';
import { mkdirOne } from '../fs/write.js';

/** A folder the pass keeps its own files in cannot be used: one line naming it and why; exit 1. */
class UnusableFolderError extends Error {
  override name = 'UnusableFolderError';
}

/**
 * The kernel's pseudo file systems (statfs f_type), where no file can be kept. Node's recursive
 * mkdir never ends on procfs (every mkdir there fails with ENOENT, which it takes for a missing
 * parent), so these are refused before anything is created.
 */
const KERNEL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'],
  [0xde5e81e4, 'efivarfs'],
  [0x1cd1, 'devpts'],
  [0x19800202, 'mqueue'],
  [0x42494e4d, 'binfmt_misc'],
  [0x65735543, 'fusectl'],
  [0xf97cff8c, 'selinuxfs'],
]);

const WHY: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'it is on a read-only file system',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
};

const user = (): string => (process.geteuid ? `uid ${process.geteuid()}` : 'this user');

/**
 * Makes sure `dir` is a folder this pass can keep files in, creating it and its parents when they
 * are absent: the folder itself with `mode` (0750 unless said: the report folder's files name other
 * users' paths, commits and command lines), its parents 0755. A folder that exists keeps its mode:
 * whoever made it chose who reads it (a volume shared with a group, node_exporter's folder). `what` names it for the person reading
 * the error (`the report folder`). A folder on a kernel file system can never work: bad usage
 * (UsageError, exit 2). One that runs through a file, or that the pass may not create or write, is
 * UnusableFolderError (exit 1): the commands refuse it before any work (ownFolderProblem), so only
 * a folder that changed since is left to this.
 */
export async function prepareOwnFolder(dir: string, what: string, mode = 0o750): Promise<void> {
  const target = path.resolve(dir);
  const existing = await nearestExisting(target, what);
  const kernel = await kernelProblem(existing.path, target, what);
  if (kernel) throw new UsageError(kernel);
  // One level at a time: a recursive mkdir reports EROFS and EACCES as ENOENT, and loops on procfs.
  for (const folder of missingBelow(existing.path, target)) {
    try {
      await mkdirOne(folder, folder === target ? mode : 0o755);
    } catch (err) {
      if (errorCode(err) === 'EEXIST') continue;
      throw new UnusableFolderError(
        `${what} ${target} cannot be created in ${path.dirname(folder)} as ${user()}: ${describe(err)}`,
      );
    }
  }
  const refused = await folderAccessOrWhy(target, 'change');
  if (refused) throw new UnusableFolderError(cannotBeWritten(what, target, refused));
}

/**
 * Why `dir` could not be made this pass's own folder, in one line naming it, or null: what
 * prepareOwnFolder would refuse or fail on (a kernel file system, a file or a broken link on its
 * path, a folder this user may not create, write or list), found before any work. It only looks:
 * nothing is created. `what` names it (`the report folder`).
 */
export async function ownFolderProblem(dir: string, what: string): Promise<string | null> {
  const target = path.resolve(dir);
  let existing: { path: string };
  try {
    existing = await nearestExisting(target, what);
  } catch (err) {
    if (err instanceof UnusableFolderError) return err.message;
    throw err;
  }
  const kernel = await kernelProblem(existing.path, target, what);
  if (kernel) return kernel;
  if (existing.path !== target) {
    const refused = await folderAccessOrWhy(existing.path, 'change');
    return refused ? `${what} ${target} cannot be created in ${existing.path} as ${user()}: ${whyOf(refused)}` : null;
  }
  const unwritable = await folderAccessOrWhy(target, 'change');
  if (unwritable) return cannotBeWritten(what, target, unwritable);
  const unreadable = await folderAccessOrWhy(target, 'list');
  return unreadable ? `${what} ${target} cannot be read as ${user()}: ${whyOf(unreadable)}` : null;
}

const whyOf = (code: string): string => WHY[code] ?? code;

const cannotBeWritten = (what: string, target: string, code: string): string =>
  `${what} ${target} cannot be written as ${user()}: ${whyOf(code)}`;

async function kernelProblem(existing: string, target: string, what: string): Promise<string | null> {
  const kernel = KERNEL_FILE_SYSTEMS.get(await fileSystemType(existing));
  return kernel ? `${what} ${target} is on the kernel's ${kernel} file system, where no file can be kept` : null;
}

/**
 * The folder itself or its nearest ancestor that exists; a file on the way cannot be used, nor a
 * link that leads nowhere (nothing is created through it) or in a loop.
 */
async function nearestExisting(target: string, what: string): Promise<{ path: string }> {
  const where = (at: string) => (at === target ? `${target} is` : `${at}, on its path, is`);
  const unusable = (at: string, why: string) =>
    new UnusableFolderError(`${what} ${target} cannot be used: ${where(at)} ${why}`);
  // The shallowest path whose stat loops is the link that loops.
  let looping: string | null = null;
  for (let current = target; ; current = path.dirname(current)) {
    let stats: Awaited<ReturnType<typeof statOrNull>>;
    try {
      stats = await statOrNull(current);
    } catch (err) {
      if (errorCode(err) === 'ELOOP') looping = current;
      else if (errorCode(err) !== 'ENOTDIR')
        throw new UnusableFolderError(`${what} ${target} cannot be looked at: ${describe(err)}`);
      continue;
    }
    if (looping) throw unusable(looping, 'a symbolic link that loops back on itself');
    if (!stats) {
      if ((await lstatOrNull(current).catch(() => null))?.isSymbolicLink())
        throw unusable(current, `a symbolic link to ${readlinkSync(current)} that leads nowhere`);
      if (path.dirname(current) === current)
        throw new UnusableFolderError(`${what} ${target}: no folder of its path exists`);
      continue;
    }
    if (!stats.isDirectory()) throw unusable(current, 'a file, not a folder');
    return { path: current };
  }
}

/** The folders from just below `existing` down to `target`, in the order they are made. */
function missingBelow(existing: string, target: string): string[] {
  if (existing === target) return [];
  const steps = path.relative(existing, target).split(path.sep);
  return steps.map((_, k) => path.join(existing, ...steps.slice(0, k + 1)));
}

function describe(err: unknown): string {
  const code = errorCode(err);
  return (code && WHY[code]) ?? (err instanceof Error ? err.message : String(err));
}
