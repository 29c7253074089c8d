import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';

const WRITER = fileURLToPath(new URL('./wal-writer.mjs', import.meta.url));
const writers: ChildProcess[] = [];

/** What a test's writer commits: this many rows of this many bytes each (a large log over a small database). */
export interface Rows {
  rows: number;
  bytes: number;
}

export const SOME_ROWS: Rows = { rows: 200, bytes: 50_000 };

/**
 * A real process of SQLite's (wal-writer.mjs): `commit` leaves `rows` committed in the log of a
 * database in WAL mode and one more in a transaction left open; `read` keeps a read transaction
 * open. Resolves once it is there; killed after the test.
 */
export async function startWalProcess(
  file: string,
  mode: 'commit' | 'read',
  rows: Rows = SOME_ROWS,
  options: { uid?: number; gid?: number } = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WRITER, file, mode, String(rows.rows), String(rows.bytes)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  writers.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code, signal) => reject(new Error(`wal-writer.mjs ended (${signal ?? code}): ${stderr}`)));
  });
  return child;
}

/** Stops a process with SIGKILL and waits until the kernel has reaped it. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * A database in WAL mode whose writer was killed mid-transaction (SIGKILL): its log holds every
 * committed row, and stays behind with its shared memory, as a killed tool leaves them.
 */
export async function killedWriter(file: string, rows: Rows = SOME_ROWS): Promise<void> {
  await killHard(await startWalProcess(file, 'commit', rows));
}

/** What a database holds, read without writing (nothing but the committed rows counts). */
export interface Contents {
  rows: number;
  bytes: number;
  /** Whether every row is the one the writer made (its bytes all `id - 1` mod 251). */
  intact: boolean;
  integrity: string;
}

export function contentsOf(file: string): Contents {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT id, body FROM item ORDER BY id').all() as Array<{ id: number; body: Buffer }>;
    return {
      rows: rows.length,
      bytes: rows.reduce((sum, row) => sum + row.body.length, 0),
      intact: rows.every((row) => row.body.every((byte) => byte === (row.id - 1) % 251)),
      integrity: (db.pragma('integrity_check', { simple: true }) as string) ?? '',
    };
  } finally {
    db.close();
  }
}

/** What a database written with `rows` holds: every committed row, none of the one left open. */
export const committed = (rows: Rows = SOME_ROWS): Contents => ({
  rows: rows.rows,
  bytes: rows.rows * rows.bytes,
  intact: true,
  integrity: 'ok',
});

/** The size of a file, or null where it is not there. */
export const sizeOf = (file: string): number | null => (existsSync(file) ? statSync(file).size : null);

// SIGKILL ends a stopped process too.
afterEach(async () => {
  for (const child of writers.splice(0)) await killHard(child);
});
