import { readFileOrNullSync } from '../fs/read.js';

let names: Map<number, string> | null = null;

/** A uid as a refusal names it: `uid 1002 (bob)`, with the name `/etc/passwd` gives it, if any. */
export function whose(uid: number): string {
  if (uid === 0) return 'root';
  names ??= readNames();
  const name = names.get(uid);
  return name === undefined ? `uid ${uid}` : `uid ${uid} (${name})`;
}

function readNames(): Map<number, string> {
  const found = new Map<number, string>();
  let text: string | null = null;
  try {
    text = readFileOrNullSync('/etc/passwd');
  } catch {
    // No names to give: the uids say it all.
  }
  for (const line of (text ?? '').split('\n')) {
    const [name, , uid] = line.split(':');
    if (name && uid && /^\d+$/.test(uid) && !found.has(Number(uid))) found.set(Number(uid), name);
  }
  return found;
}
