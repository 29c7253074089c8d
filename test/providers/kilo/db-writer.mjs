// Holds a Kilo database open the way a busy writer does, until killed.
//   wal:       WAL mode, a write transaction left open (a Kilo server mid-write)
//   exclusive: rollback-journal mode with an exclusive lock held (no reader can get in)
// usage: node db-writer.mjs <db> <wal|exclusive>; prints "ready" once it holds its lock.
import Database from 'better-sqlite3';

const [file, mode] = process.argv.slice(2);
const db = new Database(file);
if (mode === 'exclusive') {
  db.pragma('journal_mode = DELETE');
  db.pragma('locking_mode = EXCLUSIVE');
  db.exec('BEGIN EXCLUSIVE');
} else {
  db.pragma('journal_mode = WAL');
  db.exec('BEGIN IMMEDIATE');
}
db.prepare(
  "INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('uncommitted', '/nowhere', 'git', 0, 0, '[]')",
).run();
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
