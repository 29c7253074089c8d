// Holds an SQLite database locked the way a busy exclusive writer does, until killed.
//   exclusive:     rollback-journal mode, BEGIN EXCLUSIVE (no reader can get in)
//   wal-exclusive: WAL mode under locking_mode=EXCLUSIVE with a write transaction open (WAL's
//                  shared memory is not used, so no reader can get in either)
// usage: node db-holder.mjs <db> <exclusive|wal-exclusive>; prints "ready" once it holds the lock.
import Database from 'better-sqlite3';

const [file, mode] = process.argv.slice(2);
const db = new Database(file);
db.pragma(mode === 'exclusive' ? 'journal_mode = DELETE' : 'journal_mode = WAL');
db.pragma('locking_mode = EXCLUSIVE');
db.exec('BEGIN EXCLUSIVE');
db.exec('CREATE TABLE held_by_a_writer (x)');
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
