import { describe, expect, it } from 'vitest';
import { deviceNumber } from '../../../src/safety/fs/device-number.js';
import { parseLockTable } from '../../../src/safety/locks/flock.js';

describe('the lock table of /proc/locks', () => {
  const table = [
    '1: FLOCK  ADVISORY  WRITE 8563 fe:00:2146434 0 EOF',
    '1: -> FLOCK  ADVISORY  WRITE 9999 fe:00:2146434 0 EOF',
    '2: POSIX  ADVISORY  READ 8211 fe:00:2163115 128 128',
    '3: FLOCK  ADVISORY  WRITE 777 fe:01:2146434 0 EOF',
    '4: OFDLCK ADVISORY  WRITE -1 fe:00:21464340 0 EOF',
    '5: FLOCK  ADVISORY  WRITE 42 103:12345:7 0 EOF',
    '',
  ].join('\n');
  const holders = parseLockTable(table);
  const of = (major: number, minor: number, ino: number) => holders.get(`${deviceNumber(major, minor)}:${ino}`);

  it('names the holders of each file by device and inode, never its waiters', () => {
    expect(of(0xfe, 0, 2146434)).toEqual([{ pid: 8563, kind: 'FLOCK' }]);
    expect(of(0xfe, 1, 2146434)).toEqual([{ pid: 777, kind: 'FLOCK' }]);
    expect(of(0xfe, 0, 21464340)).toEqual([{ pid: -1, kind: 'OFDLCK' }]);
    expect(of(0xfe, 0, 1)).toBeUndefined();
  });

  it('reads a device whose minor is above 255 the way Node carries it in Stats.dev', () => {
    expect(of(0x103, 0x12345, 7)).toEqual([{ pid: 42, kind: 'FLOCK' }]);
  });
});
