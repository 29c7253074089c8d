import type Database from 'better-sqlite3';
import { openOwnerDatabase } from '../../util/sqlite.js';

/** How long a read waits for the editor or the tool while it writes (VS Code flushes about 100 ms after a change). */
const BUSY_TIMEOUT_MS = 3_000;

/** Opens an editor's or a tool's SQLite database read-only; a SourceOfTruthError naming the file when it cannot. */
export const openReadOnly = (file: string): Database.Database => openOwnerDatabase(file, BUSY_TIMEOUT_MS);
