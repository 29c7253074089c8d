import { readFileOrNullSync } from '../fs/read.js';

let names: Map<number, string> | null = null;

/** A uid as a refusal names it: `uid 1002 (bob)`, with the name `/etc/passwd` gives it, if any. */
export function whose(uid: number): string {
  if (uid === 0) return 'root';
  names ??= readNames();
  const name = names.get(uid);
  return name === undefined ? `uid ${uid}` : `uid ${uid} (${name})`;
}

/** The home `/etc/passwd` gives a uid now (users come and go), or null when it names none. */
export function passwdHome(uid: number): string | null {
  return readPasswd(5).get(uid) ?? null;
}

function readNames(): Map<number, string> {
  return readPasswd(0);
}

/** Field `field` of each uid's first line in `/etc/passwd` (0: the name, 5: the home). */
function readPasswd(field: number): Map<number, string> {
  const found = new Map<number, string>();
  let text: string | null = null;
  try {
    text = readFileOrNullSync('/etc/passwd');
  } catch {
    // Nothing to give: the uids say it all.
  }
  for (const line of (text ?? '').split('\n')) {
    const fields = line.split(':');
    const [uid, value] = [fields[2], fields[field]];
    if (value && uid && /^\d+$/.test(uid) && !found.has(Number(uid))) found.set(Number(uid), value);
  }
  return found;
}
