import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { lutimes, mkdir, writeFile } from '../../safety/fs/write.js';

const DAY = 86_400_000;

/**
 * A Goose user's state, as Goose's logging writes it: the CLI's date folder of three weeks ago
 * (past Goose's own 14-day rule, which runs only when Goose starts), a recent one, and a server log in
 * the older flat layout that Goose never removes.
 */
export const gooseSandbox: SandboxBuilder = {
  name: 'goose',
  async build(ctx: SandboxContext): Promise<void> {
    const goose = path.join(ctx.home, '.local', 'state', 'goose');
    const cli = path.join(goose, 'logs', 'cli');
    const stale = new Date(ctx.old.getTime() - 21 * DAY);
    await logFolder(cli, stale, ['-demo', '']);
    await logFolder(cli, new Date(ctx.old.getTime() - 2 * DAY), ['']);
    const server = path.join(goose, 'logs', 'server');
    await mkdir(server);
    const flat = path.join(server, `${stamp(new Date(ctx.old.getTime() - 40 * DAY))}-goosed.log`);
    await writeFile(flat, logLines(200));
    await lutimes(flat, ctx.old, ctx.old);
    const sessions = path.join(ctx.home, '.local', 'share', 'goose', 'sessions');
    await mkdir(sessions);
    await writeFile(path.join(sessions, 'sessions.db'), 'SQLite format 3\0');
    await backdateTree(sessions, ctx.old);
  },
};

/** `logs/<component>/<YYYY-MM-DD>/` with one `<YYYYMMDD_HHMMSS>[-<name>].log` per process, all dated `when`. */
async function logFolder(component: string, when: Date, names: string[]): Promise<void> {
  const folder = path.join(component, day(when));
  await mkdir(folder);
  for (const [k, name] of names.entries())
    await writeFile(path.join(folder, `${stamp(new Date(when.getTime() + k * 1000))}${name}.log`), logLines(20));
  await backdateTree(folder, when);
}

/** JSON lines as tracing_subscriber's JSON layer writes them. */
function logLines(count: number): string {
  let text = '';
  for (let n = 0; n < count; n += 1)
    text += `${JSON.stringify({ timestamp: new Date(0).toISOString(), level: 'INFO', fields: { message: `step ${n}` }, target: 'goose::agents::agent' })}\n`;
  return text;
}

const pad = (n: number): string => String(n).padStart(2, '0');
const day = (when: Date): string => `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`;
const stamp = (when: Date): string =>
  `${when.getFullYear()}${pad(when.getMonth() + 1)}${pad(when.getDate())}_${pad(when.getHours())}${pad(when.getMinutes())}${pad(when.getSeconds())}`;
