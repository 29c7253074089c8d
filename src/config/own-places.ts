import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { lstatOrNull } from '../safety/fs/stat.js';
import { ownFolderProblem } from '../safety/locks/own-folder.js';
import type { EffectiveConfig } from './schema.js';

/** A folder or file a command was given to write in, and where it was given (`--report-dir`, `<file>: reportDir`). */
export interface OwnPlace {
  kind: 'folder' | 'file';
  path: string;
  /** What it is, for the person reading the error: `the report folder`. */
  what: string;
  /** The option or the config file's key that named it. */
  where: string;
}

/**
 * The one check of every folder and file a command is given, made before any work: one that cannot
 * be made, read or written, or that lies on a kernel file system (/proc, /sys), is bad usage (exit
 * 2), in one line naming the option or key and the path. It only looks; nothing is created.
 */
export async function rejectUnusablePlaces(places: readonly OwnPlace[]): Promise<void> {
  for (const place of places) {
    const problem = place.kind === 'folder' ? await folderProblem(place) : await fileProblem(place);
    if (problem) throw new ConfigError(`${place.where}: ${problem}`);
  }
}

/** Where a pass of `run` or `serve` writes: the report folder, and the metrics file when there is one. */
export function passPlaces(
  config: EffectiveConfig,
  given: { 'report-dir'?: string | undefined; 'metrics-file'?: string | undefined },
): OwnPlace[] {
  const file = config.source ?? 'built-in defaults';
  const places: OwnPlace[] = [
    {
      kind: 'folder',
      path: config.reportDir,
      what: 'the report folder',
      where: given['report-dir'] !== undefined ? '--report-dir' : `${file}: reportDir`,
    },
  ];
  const textfile = config.metrics.textfile;
  if (textfile !== undefined)
    places.push({
      kind: 'file',
      path: path.resolve(textfile),
      what: 'the metrics file',
      where: given['metrics-file'] !== undefined ? '--metrics-file' : `${file}: metrics.textfile`,
    });
  return places;
}

function folderProblem(place: OwnPlace): Promise<string | null> {
  return ownFolderProblem(place.path, place.what);
}

/** A file is written to a temp file beside it and renamed over it: its folder is checked, and what stands in its place. */
async function fileProblem(place: OwnPlace): Promise<string | null> {
  const file = path.resolve(place.path);
  const folder = await ownFolderProblem(path.dirname(file), 'its folder');
  if (folder) return `${place.what} ${file} cannot be written: ${folder}`;
  const entry = await lstatOrNull(file).catch(() => null);
  if (entry?.isDirectory()) return `${place.what} ${file} is a folder, not a file`;
  if (entry && !entry.isFile() && !entry.isSymbolicLink())
    return `${place.what} ${file} is neither a regular file nor a link to one`;
  return null;
}
