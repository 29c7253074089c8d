import { SourceOfTruthError, errorMessage } from '../../model/errors.js';
import { readOwnerDatabase } from '../../util/sqlite.js';
import { BUSY_TIMEOUT_MS } from './read-only-db.js';
import { isPlainObject } from '../../util/plain-object.js';

/** An extension's global state as one `state.vscdb` holds it: the JSON object of its row (none without one). */
export interface ExtensionStateRow {
  file: string;
  /** One per row: keys that differ only in case would be two rows, and either could hold history. */
  states: Array<Record<string, unknown>>;
}

/**
 * Reads an extension's row from a VS Code state database, read-only: `ItemTable(key, value)`, the
 * row whose key is the extension id in any case (VS Code keys it with the manifest's case, such as
 * `RooVeterinaryInc.roo-cline`), its value a JSON object. Never writes, never waits longer than a
 * short busy timeout. Throws a SourceOfTruthError naming the file when the database cannot be
 * opened or read, has no `ItemTable`, or the row is not a JSON object.
 */
export function readExtensionState(file: string, extensionId: string): ExtensionStateRow {
  return readOwnerDatabase(file, BUSY_TIMEOUT_MS, (db) => {
    const columns = new Set(
      (db.prepare('SELECT name FROM pragma_table_info(?)').all('ItemTable') as Array<{ name: string }>).map((column) =>
        column.name.toLowerCase(),
      ),
    );
    if (!columns.has('key') || !columns.has('value')) {
      throw new SourceOfTruthError(`${file}: unknown schema: no table ItemTable with the columns key and value`);
    }
    const rows = db
      .prepare('SELECT key, value FROM ItemTable WHERE lower(key) = ?')
      .all(extensionId.toLowerCase()) as Array<{ key: string; value: unknown }>;
    return { file, states: rows.map((row) => parseRow(file, row)) };
  });
}

function parseRow(file: string, row: { key: string; value: unknown }): Record<string, unknown> {
  const text = Buffer.isBuffer(row.value) ? row.value.toString('utf8') : row.value;
  if (typeof text !== 'string') throw new SourceOfTruthError(`${file}: the row ${row.key} holds no text`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SourceOfTruthError(`${file}: the row ${row.key} is not valid JSON: ${errorMessage(err)}`);
  }
  if (!isPlainObject(value)) throw new SourceOfTruthError(`${file}: the row ${row.key} is not a JSON object`);
  return value;
}
