import path from 'node:path';
import { readFileOrNull } from '../../safety/fs/read.js';
import { writeFileAtomic } from '../../safety/fs/write.js';
import { prepareOwnFolder } from '../../safety/locks/own-folder.js';
import { LAST_PASS_METRICS } from './last-pass.js';

/**
 * Replaces the textfile-collector file: written to a temp file in the same folder (a name that does
 * not end in `.prom`, so node_exporter never reads it), then renamed over the old one, so a scrape
 * sees the previous pass's figures or this one's, never half a file. 0644: node_exporter usually
 * runs as another user.
 */
export async function writeTextfile(file: string, text: string): Promise<void> {
  // node_exporter reads the folder as another user.
  await prepareOwnFolder(path.dirname(file), 'the metrics file’s folder', 0o755);
  await writeFileAtomic(file, text, 0o644);
}

/** The last success time the previous file recorded, or null when there is no file or no success in it. */
export async function readLastSuccess(file: string): Promise<number | null> {
  const text = await readFileOrNull(file);
  if (text === null) return null;
  return parseLastSuccess(text);
}

export function parseLastSuccess(text: string): number | null {
  const sample = new RegExp(`^${LAST_PASS_METRICS.lastSuccess}(?:\\{\\})?[ \\t]+(\\S+)`);
  for (const line of text.split('\n')) {
    const match = sample.exec(line);
    if (!match) continue;
    const value = Number(match[1]);
    if (Number.isFinite(value)) return value;
  }
  return null;
}
