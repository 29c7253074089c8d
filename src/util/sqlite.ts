import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { errorMessage, SourceOfTruthError } from '../core/errors.js';

/**
 * Where SQLite's native addon is, found once. better-sqlite3 would otherwise find it with
 * `bindings`, which searches from the file that called it, and the bundle that runs a command
 * (dist/chunks/cli.cjs) is not inside better-sqlite3's package. Its JavaScript is in the bundle,
 * and so starts from the code cache; the addon is loaded at the first open.
 */
let addonFile: string | null = null;

function nativeAddonFile(): string {
  addonFile ??= createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
  return addonFile;
}

type OpenOptions = Omit<Database.Options, 'nativeBinding'>;

/** Every SQLite database this tool opens (owners' read-only, the run lock, the demo's) is opened here. */
export function openSqlite(file: string, options: OpenOptions = {}): Database.Database {
  return new Database(file, { ...options, nativeBinding: nativeAddonFile() });
}

/** Opens an owner's SQLite database read-only. */
export function openSqliteReadOnly(file: string, busyTimeoutMs: number): Database.Database {
  return openSqlite(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
}

/** The same, a SourceOfTruthError naming the file when it cannot be opened. */
export function openOwnerDatabase(file: string, busyTimeoutMs: number): Database.Database {
  try {
    return openSqliteReadOnly(file, busyTimeoutMs);
  } catch (err) {
    throw new SourceOfTruthError(`${file}: cannot open read-only: ${errorMessage(err)}`);
  }
}
