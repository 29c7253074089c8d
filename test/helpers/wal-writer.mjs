// A process of SQLite's own that writes or reads a database in WAL mode, until it is killed.
//   commit: WAL mode, no automatic checkpoint, <rows> rows of <bytes> bytes committed one by one
//           (a large log over a small database), then one row inserted in a transaction left open
//   read:   an existing database, a read transaction left open (a reader that never ends it)
// usage: node wal-writer.mjs <db> <commit|read> [rows] [bytes]; prints "ready" once it is there.
import Database from 'better-sqlite3';

const [file, mode, rows = '200', bytes = '50000'] = process.argv.slice(2);
const db = new Database(file);
if (mode === 'read') {
  db.exec('BEGIN');
  db.prepare('SELECT count(*) FROM item').get();
} else {
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO item (body) VALUES (?)');
  for (let k = 0; k < Number(rows); k += 1) insert.run(Buffer.alloc(Number(bytes), k % 251));
  db.exec('BEGIN IMMEDIATE');
  insert.run(Buffer.from('never committed'));
}
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
