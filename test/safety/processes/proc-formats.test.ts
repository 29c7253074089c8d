import { execFileSync, spawn } from 'node:child_process';
import { closeSync, copyFileSync, chmodSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindMountsOf } from '../../../src/safety/processes/bind-sources.js';
import { deviceNumber, parseDecimalDevice, parseHexDevice } from '../../../src/safety/fs/device-number.js';
import { readKernelFileSync } from '../../../src/safety/fs/read.js';
import { IdentityIndex } from '../../../src/safety/processes/identities.js';
import { namespaceView } from '../../../src/safety/processes/mount-namespaces.js';
import { parseMountinfo, placeOf, unescapeMountField } from '../../../src/safety/processes/mountinfo.js';
import { decodeBytes } from '../../../src/safety/fs/names.js';
import { mappedFiles, parseMapsLine } from '../../../src/safety/processes/proc-maps.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

describe('device numbers as Stats.dev carries them', () => {
  it('matches what the kernel and Node give a real device node, minors above 255 and majors above 255 included', () => {
    const dir = tempDir();
    // mknod makes a device node with exactly these numbers; Node's rdev uses the same encoding as dev.
    for (const [major, minor] of [
      [254, 1],
      [0, 45],
      [0, 300],
      [8, 1048575],
      [259, 70000],
      [4095, 256],
    ] as const) {
      const node = path.join(dir, `dev-${major}-${minor}`);
      execFileSync('mknod', [node, 'c', String(major), String(minor)]);
      expect(deviceNumber(major, minor), `${major}:${minor}`).toBe(statSync(node).rdev);
      expect(parseHexDevice(`${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`)).toBe(
        statSync(node).rdev,
      );
      expect(parseDecimalDevice(`${major}:${minor}`)).toBe(statSync(node).rdev);
    }
  });

  it("follows glibc's makedev for majors the kernel does not make (above 4095), and rejects malformed text", () => {
    // glibc: ((major & 0xfffff000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffffff00) << 12) | (minor & 0xff)
    expect(deviceNumber(0x1000, 0)).toBe(Number(0x1000n << 32n));
    expect(deviceNumber(0x1001, 0x1ff)).toBe(Number((0x1000n << 32n) | (0x1n << 8n) | (0x100n << 12n) | 0xffn));
    expect(deviceNumber(0, 0x100000)).toBe(Number(0x100000n << 12n));
    expect(parseHexDevice('fd')).toBeNaN();
    expect(parseHexDevice('zz:01')).toBeNaN();
    expect(parseDecimalDevice('254:')).toBeNaN();
  });
});

describe('/proc/<pid>/maps', () => {
  it('reads the device and inode of a mapped file as stat() gives them, each file once', async () => {
    const dir = tempDir();
    const binary = path.join(dir, 'agent binary');
    copyFileSync('/bin/sleep', binary);
    chmodSync(binary, 0o755);
    const child = spawnLiving(binary, ['600']);
    await waitFor(() => readFileSync(`/proc/${child.pid}/maps`, 'utf8').includes(binary));
    const files = mappedFiles(readFileSync(`/proc/${child.pid}/maps`, 'utf8'));
    const stats = statSync(binary);
    const mine = files.filter((file) => file.path === binary);
    expect(mine).toEqual([{ dev: stats.dev, ino: stats.ino, path: binary }]);
    const libc = files.find((file) => file.path !== null && /libc[.-]/.test(file.path));
    if (libc)
      expect(libc).toMatchObject({ dev: statSync(libc.path as string).dev, ino: statSync(libc.path as string).ino });
  });

  it('parses names with spaces and the deleted mark, and skips anonymous mappings', () => {
    expect(parseMapsLine('7f00-7f01 r--p 00000000 fe:01 131 /tmp/a b/c (deleted)')).toEqual({
      dev: deviceNumber(0xfe, 1),
      ino: 131,
      path: '/tmp/a b/c (deleted)',
    });
    expect(parseMapsLine('7f00-7f01 rw-p 00000000 00:2d 1057                       /memfd:x (deleted)')).toMatchObject({
      dev: deviceNumber(0, 0x2d),
      ino: 1057,
    });
    expect(parseMapsLine('7f00-7f01 rw-p 00000000 00:00 0                          [heap]')).toBeNull();
    expect(parseMapsLine('7f00-7f01 rw-p 00000000 00:00 0 ')).toBeNull();
    expect(parseMapsLine('')).toBeNull();
  });
});

describe('the identity index', () => {
  it('tells files of the same inode number on two devices apart, each pid once', () => {
    const index = new IdentityIndex();
    index.add(1, 77, 10);
    index.add(1, 77, 10);
    index.add(2, 77, 11);
    index.add(1, 77, 12);
    expect(index.holdersOf(1, 77)).toEqual([10, 12]);
    expect(index.holdersOf(2, 77)).toEqual([11]);
    expect(index.holdersOf(3, 77)).toBeUndefined();
    expect(index.holdersOf(1, 78)).toBeUndefined();
  });

  it('finds a process that holds a file open, by the identity stat() gives it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'held.log');
    execFileSync('sh', ['-c', `echo x > '${file}'`]);
    const fd = openSync(file, 'r');
    const holder = spawn('sleep', ['600'], { stdio: [fd, 'ignore', 'ignore'] });
    closeSync(fd);
    try {
      const { scanProcesses } = await import('../../../src/safety/processes/processes.js');
      const stats = statSync(file);
      await waitFor(
        () =>
          scanProcesses()
            .identities.holdersOf(stats.dev, stats.ino)
            ?.includes(holder.pid as number) ?? false,
      );
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('mountinfo', () => {
  const text = [
    '26 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '30 26 0:45 / /tmp rw shared:5 - tmpfs tmpfs rw',
    '31 26 254:0 /srv/homes /home rw shared:1 - ext4 /dev/vda rw',
    '32 26 254:0 /srv/homes/ana/.watchfire/codex-home/x:chat /mnt/with\\040space rw - ext4 /dev/vda rw',
    '33 26 254:0 /srv/gone//deleted /mnt/gone rw - ext4 /dev/vda rw',
    'not a mount line',
  ].join('\n');

  it('reads device, root and mount point, with escapes and the deleted mark undone', () => {
    const mounts = parseMountinfo(text);
    expect(mounts.map((m) => [m.id, m.dev, m.root, m.mountPoint])).toEqual([
      [26, deviceNumber(254, 0), '/', '/'],
      [30, deviceNumber(0, 45), '/', '/tmp'],
      [31, deviceNumber(254, 0), '/srv/homes', '/home'],
      [32, deviceNumber(254, 0), '/srv/homes/ana/.watchfire/codex-home/x:chat', '/mnt/with space'],
      [33, deviceNumber(254, 0), '/srv/gone', '/mnt/gone'],
    ]);
    expect(unescapeMountField('a\\011b\\012c\\134d')).toBe('a\tb\nc\\d');
  });

  it('places a path in its filesystem through the mount on top, and finds the views of it', () => {
    const mounts = parseMountinfo(text);
    const item = '/home/ana/.watchfire/codex-home/x:chat';
    expect(placeOf(mounts, item)).toEqual({
      dev: deviceNumber(254, 0),
      path: `/srv/homes/ana/.watchfire/codex-home/x:chat`,
      mountId: 31,
    });
    expect(placeOf(mounts, '/tmp/x')).toMatchObject({ dev: deviceNumber(0, 45), path: '/x', mountId: 30 });
    // A later mount on the same point is the one on top.
    const stacked = parseMountinfo(`${text}\n40 30 0:46 / /tmp rw - tmpfs tmpfs rw`);
    expect(placeOf(stacked, '/tmp/x')).toMatchObject({ dev: deviceNumber(0, 46), mountId: 40 });

    const ours = namespaceView(mounts, 'mnt:[1]', 1, true);
    const container = namespaceView(
      parseMountinfo(
        [
          '50 49 254:0 /srv/homes/ana /workspace rw - ext4 /dev/vda rw',
          '51 49 254:0 /srv/homes/ana/.watchfire/codex-home/x:chat/src /src rw - ext4 /dev/vda rw',
          '52 49 0:45 /srv/homes/ana/.watchfire/codex-home/x:chat /same-path-other-device rw - tmpfs tmpfs rw',
        ].join('\n'),
      ),
      'mnt:[2]',
      77,
      false,
    );
    const found = bindMountsOf({ own: mounts, namespaces: [ours, container] }, item);
    expect(found).toEqual([
      'this mount namespace has it mounted at /mnt/with space',
      'mount namespace mnt:[2] (process 77) has src inside it mounted at /src',
    ]);
    // A mount of an ancestor (the home at /workspace) is how the host reaches it too: no view of it.
    expect(bindMountsOf({ own: mounts, namespaces: [container] }, '/home/ana/other')).toEqual([]);
    expect(bindMountsOf({ own: null, namespaces: [container] }, item)).toEqual([]);
  });
});

describe('readKernelFileSync, the reader of /proc files', () => {
  it('reads what fs.readFileSync reads: a real maps file, and files larger than its buffer, bytes kept', () => {
    const own = `/proc/${process.pid}/maps`;
    expect(readKernelFileSync(own).split('\n')[0]).toBe(readFileSync(own, 'utf8').split('\n')[0]);
    const dir = tempDir();
    // Latin-1 bytes (not UTF-8) past the first 64 kB and past a doubling of the buffer.
    for (const size of [0, 1, 65_536, 65_537, 300_000]) {
      const file = path.join(dir, `f-${size}`);
      const bytes = Buffer.alloc(size, 0x61);
      if (size > 0) bytes[size - 1] = 0xe9;
      writeFileSync(file, bytes);
      expect(readKernelFileSync(file), String(size)).toBe(decodeBytes(bytes));
    }
    // A short file after a long one: only its own bytes.
    expect(readKernelFileSync(path.join(dir, 'f-1'))).toBe(decodeBytes(Buffer.from([0xe9])));
  });
});
