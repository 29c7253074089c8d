import { errorMessage } from '../../model/errors.js';
import { fileSystemTypeSync } from '../fs/stat.js';

/**
 * File systems (statfs `f_type`) on which SQLite's write-ahead log is not to be trusted: WAL needs
 * memory shared between the processes of one host (`-shm`, mapped), which a network or userspace
 * file system does not give across hosts, and whose locks may not hold. Codex converts such homes
 * to rollback-journal mode itself. The names say what each is in a detail.
 *
 * A test adds a type here (tmpfs, standing in for NFS, which cannot be mounted on a test machine);
 * nothing else changes it.
 */
export const NOT_LOCAL_FILESYSTEMS = new Map<number, string>([
  [0x6969, 'NFS'],
  [0x517b, 'SMB'],
  [0xff534d42, 'CIFS'],
  [0xfe534d42, 'SMB2'],
  [0x01021997, '9p'],
  [0x65735546, 'FUSE'],
  [0x5346414f, 'AFS'],
  [0x6b414653, 'AFS'],
  [0x00c36400, 'Ceph'],
  [0x73757245, 'Coda'],
  [0x0bd00bd0, 'Lustre'],
]);

/**
 * Why SQLite's shared memory cannot be trusted in `folder` (its file system is one of the above),
 * or null where it is local. A folder whose type cannot be read is not taken to be local.
 */
export function notLocalBecause(folder: string): string | null {
  let type: number;
  try {
    type = fileSystemTypeSync(folder);
  } catch (err) {
    return `the file system of ${folder} cannot be told (${errorMessage(err)})`;
  }
  const name = NOT_LOCAL_FILESYSTEMS.get(type);
  return name === undefined
    ? null
    : `${folder} is on ${name} (statfs type 0x${type.toString(16)}), where SQLite's shared memory between processes cannot be trusted`;
}
