import path from 'node:path';
import { mkdir, writeFile } from '../../safety/fs/write.js';

/**
 * For the demo: `objects/pack/tmp_pack_<suffix>` in a git folder, as a `git add` killed while it
 * streamed a large file leaves it (a pack header, then what it had written; read-only, as git
 * makes it). Answers its path.
 */
export async function leaveGitGarbage(gitdir: string, suffix: string, megabytes: number): Promise<string> {
  const pack = path.join(gitdir, 'objects', 'pack');
  await mkdir(pack);
  const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 1]);
  const body = Buffer.alloc(megabytes * 1024 * 1024);
  for (let i = 0; i < body.length; i += 1) body[i] = (i * 2654435761) >>> 24;
  const file = path.join(pack, `tmp_pack_${suffix}`);
  await writeFile(file, Buffer.concat([header, body]), 'w', 0o444);
  return file;
}
