import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listGitGarbage } from '../../../src/engines/git-garbage/listing.js';
import { tempDir } from '../../helpers/temp.js';

describe("the git garbage engine's listing", () => {
  it("lists exactly git's temporary files, regular files only, each with its size", async () => {
    const gitdir = path.join(tempDir('aj-garbage-list-'), 'repo');
    execFileSync('git', ['init', '-q', '--bare', gitdir]);
    const objects = path.join(gitdir, 'objects');
    const pack = path.join(objects, 'pack');
    const put = (file: string, bytes: number) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, Buffer.alloc(bytes, 1));
      return file;
    };
    const garbage = [
      put(path.join(pack, 'tmp_pack_Ab12Cd'), 11),
      put(path.join(pack, 'tmp_idx_Ab12Cd'), 12),
      put(path.join(pack, 'tmp_rev_Ab12Cd'), 13),
      put(path.join(pack, 'tmp_mtimes_Ab12Cd'), 14),
      put(path.join(pack, 'tmp_bitmap_Ab12Cd'), 15),
      put(path.join(pack, '.tmp-4242-pack-0123abcd.pack'), 16),
      put(path.join(pack, '.tmp-4242-pack-0123abcd.idx'), 17),
      put(path.join(pack, 'multi-pack-index.lock'), 18),
      put(path.join(objects, 'tmp_obj_Zz9Yy8'), 19),
      put(path.join(objects, 'ab', 'tmp_obj_Qq1Ww2'), 20),
    ];
    // Never garbage here: packs and their files, loose objects, git's own files, other folders'
    // temporary names, and anything that is not a regular file.
    put(path.join(pack, 'pack-0123abcd.pack'), 1);
    put(path.join(pack, 'pack-0123abcd.idx'), 1);
    put(path.join(pack, 'pack-0123abcd.keep'), 1);
    put(path.join(pack, 'tmp_obj_in_pack_folder'), 1);
    put(path.join(pack, '.tmp-pack-without-pid'), 1);
    put(path.join(objects, 'ab', 'cdef0123456789abcdef0123456789abcdef01'), 1);
    put(path.join(objects, 'info', 'tmp_obj_in_info'), 1);
    put(path.join(objects, 'info', 'packs'), 1);
    put(path.join(objects, 'zz', 'tmp_obj_not_a_fan_out'), 1);
    put(path.join(objects, 'tmp_pack_outside_pack'), 1);
    put(path.join(gitdir, 'index.lock'), 1);
    put(path.join(gitdir, 'tmp_obj_beside_objects'), 1);
    put(path.join(gitdir, 'seed-objects', 'pack', 'tmp_pack_seeding'), 1);
    mkdirSync(path.join(pack, 'tmp_pack_folder'));
    symlinkSync('/etc/passwd', path.join(pack, 'tmp_pack_link'));
    symlinkSync('/etc/passwd', path.join(objects, 'tmp_obj_link'));
    execFileSync('mkfifo', [path.join(pack, 'tmp_idx_fifo')]);

    const listed = await listGitGarbage(gitdir);

    expect(listed.map((file) => file.path)).toEqual([...garbage].sort());
    expect(listed.map((file) => file.bytes).sort((a, b) => a - b)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });

  it('finds nothing in a repository without objects/, and in an empty one', async () => {
    const dir = tempDir('aj-garbage-none-');
    expect(await listGitGarbage(path.join(dir, 'missing'))).toEqual([]);
    execFileSync('git', ['init', '-q', '--bare', path.join(dir, 'empty')]);
    expect(await listGitGarbage(path.join(dir, 'empty'))).toEqual([]);
  });
});
