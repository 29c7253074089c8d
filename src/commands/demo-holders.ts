import { spawn, type ChildProcess } from 'node:child_process';

/** What the holder calls itself in `ps` and in the report's detail of the item it holds. */
const HOLDER_TITLE = 'agent-janitor demo: a runaway agent writing into dead scratch';

/**
 * The holder: it opens its file for appending, says so on stdout, and writes a line four times a
 * second. It lives only as long as the demo: it exits when its stdin, a pipe only the demo holds,
 * closes, which the kernel does when the demo exits however it exits (SIGKILL included).
 */
const HOLDER = `
process.title = ${JSON.stringify(HOLDER_TITLE)};
const fs = require('node:fs');
const fd = fs.openSync(process.argv[1], 'a');
let n = 0;
setInterval(() => fs.writeSync(fd, JSON.stringify({ type: 'event_msg', n: ++n, at: new Date().toISOString() }) + '\\n'), 250);
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.stdout.write('open\\n');
`;

/** The live processes the demo runs beside its passes. */
interface Holders {
  pids: number[];
  /** Stops every holder and waits until each has exited. */
  stop(): Promise<void>;
}

/**
 * Starts one process per file, each holding its file open and writing into it (as an agent that
 * outlived its session does), and answers once every one has its file open.
 */
export async function startHolders(files: readonly string[]): Promise<Holders> {
  const children: ChildProcess[] = [];
  const holders: Holders = {
    pids: [],
    stop: () => Promise.all(children.map(stopChild)).then(() => undefined),
  };
  try {
    for (const file of files) {
      const child = spawn(process.execPath, ['-e', HOLDER, file], { stdio: ['pipe', 'pipe', 'ignore'] });
      children.push(child);
      await opened(child, file);
      holders.pids.push(child.pid as number);
    }
  } catch (err) {
    await holders.stop();
    throw err;
  }
  return holders;
}

/** Resolves when the holder says it has its file open; rejects when it exits first. */
function opened(child: ChildProcess, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (why: string) => reject(new Error(`the demo's holder of ${file} ${why}`));
    child.once('error', (err) => failed(`could not start: ${err.message}`));
    child.once('exit', (code, signal) => failed(`exited (${signal ?? `code ${code}`}) before it opened the file`));
    child.stdout?.once('data', () => {
      child.removeAllListeners('exit');
      resolve();
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
