import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { SandboxBuilder, SandboxContext, SandboxExtras } from '../../provider-api/sandbox.js';
import { errorCode } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { lutimes, mkdir, symlink, writeFile } from '../../safety/fs/write.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { quarantineName } from '../../safety/removal/quarantine.js';
import { sessionName, type SessionNameParts } from './slug.js';

const DAY = 86_400_000;

interface DemoProject {
  id: string;
  name: string;
}

const STOREFRONT: DemoProject = { id: '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a60', name: 'Storefront' };
const BILLING: DemoProject = { id: '7a2e3d4c-5b6a-4f90-8b1c-2d3e4f5a6b71', name: 'Billing API' };
const ACME_TOOLS: DemoProject = {
  id: '8b3f4e5d-6c7b-4a01-9c2d-3e4f5a6b7c82',
  name: 'Acme Platform Services Backend Tools',
};
const MOBILE: DemoProject = { id: '9c4a5f6e-7d8c-4b12-8d3e-4f5a6b7c8d93', name: 'Mobile App' };

/**
 * Two Watchfire roots: the demo user's own, whose daemon is live (its pid is the demo's own
 * process), and a second user's, whose daemon crashed mid-session.
 */
export const watchfireSandbox: SandboxBuilder = {
  name: 'watchfire',
  async build(ctx: SandboxContext): Promise<SandboxExtras> {
    const live = path.join(ctx.home, '.watchfire');
    const crashed = path.join(ctx.root, 'watchfire-bo', '.watchfire');
    const runaway = await buildLiveRoot(ctx, live);
    await buildCrashedRoot(ctx, crashed);
    return { config: { providers: { watchfire: { root: [live, crashed] } } }, heldOpen: [runaway] };
  },
};

async function buildLiveRoot(ctx: SandboxContext, root: string): Promise<string> {
  const { codex, copilot, opencode } = await userConfig(ctx.home);
  await writeProjects(root, [STOREFRONT, BILLING, ACME_TOOLS]);
  await writeAgents(root, [
    { project: STOREFRONT, mode: 'chat' },
    { project: ACME_TOOLS, mode: 'wildfire-execute' },
  ]);
  await writeDaemon(root, process.pid);
  await put(path.join(root, 'daemon.lock'), '');
  await put(path.join(root, 'settings.yaml'), 'version: 1\n');
  await put(path.join(root, 'digests', '2026-11-29.md'), '# Daily digest\n');
  await put(path.join(root, 'diff-cache', `${BILLING.id}.json`), '{}');

  // Running: kept while the daemon lives.
  await codexHome(root, { projectName: STOREFRONT.name, mode: 'chat' }, codex);
  // A deleted project, in two backends, linked into the user's real config.
  await codexHome(
    root,
    { projectName: 'Legacy Prototype', mode: 'task', task: { number: 3, title: 'Spike auth' } },
    codex,
  );
  await opencodeHome(root, { projectName: 'Legacy Prototype', mode: 'chat' }, opencode, true);
  // A deleted project whose agent outlived its session and still writes its rollout: dead, but a
  // live process holds it (the demo starts one on the file this builder answers), so only
  // stopping that process frees its bytes.
  const runaway = path.join(
    await codexHome(
      root,
      { projectName: 'Checkout Rewrite', mode: 'task', task: { number: 9, title: 'Retry payments' } },
      codex,
    ),
    'sessions',
    '2026',
    '11',
    '27',
    'rollout-2026-11-27T11-00-00-runaway.jsonl',
  );
  await put(
    runaway,
    '{"type":"event_msg","payload":{"type":"agent_message","message":"retrying the build"}}\n'.repeat(16_384),
  );
  // Same 30-byte slug as the running Acme Platform Services Backend Tools: kept with it.
  await codexHome(root, { projectName: 'Acme Platform Services Backend Team', mode: 'chat' }, codex);
  // Billing API is registered and idle: one home exported, one not, one failed start.
  await codexHome(root, { projectName: BILLING.name, mode: 'chat' }, codex);
  const unexported = await copilotHome(
    root,
    { projectName: BILLING.name, mode: 'task', task: { number: 12, title: 'Rate limits' } },
    copilot,
  );
  const failed = path.join(root, 'gemini-home', sessionName({ projectName: BILLING.name, mode: 'agent' }));
  await put(path.join(failed, 'system.md'), '# Watchfire system prompt\n');
  // What an interrupted deletion leaves: a quarantine, finished first.
  const quarantine = path.join(
    root,
    'codex-home',
    quarantineName(sessionName({ projectName: 'Legacy Prototype', mode: 'wildfire-refine' })),
  );
  await put(path.join(quarantine, 'sessions', 'rollout-partial.jsonl'), '{"type":"message"}\n');

  const logEnded = new Date(ctx.old.getTime() + DAY);
  await writeSessionLog(root, BILLING, logEnded);
  await age(root, ctx.old);
  await age(path.join(root, 'logs'), logEnded);
  // Written after the last Billing API session ended: not covered by its log.
  const afterLog = new Date(ctx.old.getTime() + 2 * DAY);
  await put(path.join(unexported, 'session-state', 's-41', 'events.jsonl'), '{"type":"message","text":"half done"}\n');
  await age(unexported, afterLog);
  await age(failed, afterLog);
  return runaway;
}

async function buildCrashedRoot(ctx: SandboxContext, root: string): Promise<void> {
  await writeProjects(root, [MOBILE]);
  await writeAgents(root, [{ project: MOBILE, mode: 'task', task: { number: 7, title: 'Offline sync' } }]);
  await writeDaemon(root, deadPid());
  await put(path.join(root, 'daemon.lock'), '');
  const home = path.join(
    root,
    'codex-home',
    sessionName({ projectName: MOBILE.name, mode: 'task', task: { number: 7, title: 'Offline sync' } }),
  );
  await put(path.join(home, 'AGENTS.md'), '# Watchfire system prompt\n');
  await put(
    path.join(home, 'sessions', '2026', '11', '27', 'rollout-2026-11-27T10-00-00-offline.jsonl'),
    '{"type":"message"}\n',
  );
  const failedStart = path.join(root, 'opencode-home', sessionName({ projectName: MOBILE.name, mode: 'chat' }));
  await put(path.join(failedStart, 'config', 'AGENTS.md'), '# Watchfire system prompt\n');
  await put(path.join(failedStart, 'config', 'opencode.json'), '{"permission":"allow"}');
  await mkdir(path.join(failedStart, 'data'));
  await age(path.dirname(root), ctx.old);
}

async function codexHome(root: string, name: SessionNameParts, codex: string): Promise<string> {
  const home = path.join(root, 'codex-home', sessionName(name));
  await put(path.join(home, 'AGENTS.md'), '# Watchfire system prompt\n');
  await put(
    path.join(home, 'sessions', '2026', '11', '27', 'rollout-2026-11-27T09-00-00-demo.jsonl'),
    '{"type":"session_meta"}\n{"type":"message"}\n',
  );
  for (const entry of ['auth.json', 'config.toml']) await symlink(path.join(codex, entry), path.join(home, entry));
  return home;
}

async function copilotHome(root: string, name: SessionNameParts, copilot: string): Promise<string> {
  const home = path.join(root, 'copilot-home', sessionName(name));
  await put(path.join(home, 'AGENTS.md'), '# Watchfire system prompt\n');
  for (const entry of ['config.json', 'mcp-config.json'])
    await symlink(path.join(copilot, entry), path.join(home, entry));
  return home;
}

/** opencode's `config/` holds a link to every entry of the user's `~/.config/opencode`. */
async function opencodeHome(
  root: string,
  name: SessionNameParts,
  opencode: string,
  withSession: boolean,
): Promise<string> {
  const home = path.join(root, 'opencode-home', sessionName(name));
  await mkdir(path.join(home, 'config'));
  for (const entry of await readdirOrEmpty(opencode)) {
    if (entry.name === 'opencode.json' || entry.name === 'AGENTS.md') continue;
    await symlink(path.join(opencode, entry.name), path.join(home, 'config', entry.name));
  }
  await put(path.join(home, 'config', 'AGENTS.md'), '# Watchfire system prompt\n');
  await put(
    path.join(home, 'config', 'opencode.json'),
    '{"$schema":"https://opencode.ai/config.json","permission":"allow"}',
  );
  if (withSession)
    await put(path.join(home, 'data', 'storage', 'message', 'ses_demo', 'msg_01.json'), '{"role":"user"}');
  return home;
}

/** The user's own CLI config that homes link into; left untouched by every pass. */
async function userConfig(home: string): Promise<{ codex: string; copilot: string; opencode: string }> {
  const codex = path.join(home, '.codex');
  await putIfAbsent(path.join(codex, 'auth.json'), '{"OPENAI_API_KEY":"sk-demo"}\n');
  await putIfAbsent(path.join(codex, 'config.toml'), 'model = "o3"\n');
  const copilot = path.join(home, '.copilot');
  await putIfAbsent(path.join(copilot, 'config.json'), '{"logged_in_users":[]}\n');
  await putIfAbsent(path.join(copilot, 'mcp-config.json'), '{"mcpServers":{}}\n');
  const opencode = path.join(home, '.config', 'opencode');
  await putIfAbsent(path.join(opencode, 'opencode.json'), '{"model":"anthropic/claude"}\n');
  await putIfAbsent(path.join(opencode, 'agent', 'reviewer.md'), '# Reviewer agent\n');
  await putIfAbsent(path.join(opencode, 'command', 'ship.md'), '# Ship command\n');
  return { codex, copilot, opencode };
}

async function writeProjects(root: string, projects: DemoProject[]): Promise<void> {
  const lines = ['version: 1', 'projects:'];
  projects.forEach((p, index) => {
    lines.push(
      `    - project_id: ${p.id}`,
      `      name: ${JSON.stringify(p.name)}`,
      `      path: /home/ana/src/${index}`,
      `      position: ${index}`,
    );
  });
  await put(path.join(root, 'projects.yaml'), `${lines.join('\n')}\n`);
}

async function writeAgents(
  root: string,
  agents: Array<{ project: DemoProject; mode: string; task?: { number: number; title: string } }>,
): Promise<void> {
  const lines = ['version: 1', 'agents:'];
  for (const { project, mode, task } of agents) {
    lines.push(
      `    - project_id: ${project.id}`,
      `      project_name: ${JSON.stringify(project.name)}`,
      `      project_path: /home/ana/src/x`,
      `      mode: ${mode}`,
    );
    if (task) lines.push(`      task_number: ${task.number}`, `      task_title: ${JSON.stringify(task.title)}`);
  }
  await put(path.join(root, 'agents.yaml'), `${lines.join('\n')}\n`);
}

async function writeDaemon(root: string, pid: number): Promise<void> {
  await put(
    path.join(root, 'daemon.yaml'),
    `version: 1\nhost: localhost\nport: 50051\npid: ${pid}\nstarted_at: 2026-11-27T08:00:00Z\n`,
  );
}

async function writeSessionLog(root: string, project: DemoProject, ended: Date): Promise<void> {
  const started = new Date(ended.getTime() - 25 * 60_000);
  const stamp = (date: Date) => date.toISOString().replace(/\.\d+Z$/, 'Z');
  const file = path.join(root, 'logs', project.id, `chat-0-${stamp(started).slice(0, 19).replace(/:/g, '-')}.log`);
  const header = [
    '---',
    `project_id: ${project.id}`,
    'task_number: 0',
    'session_number: 1',
    'agent: codex',
    'mode: chat',
    `started_at: ${stamp(started)}`,
    `ended_at: ${stamp(ended)}`,
    'status: completed',
    '---',
    '## User',
    '',
    'Summarise the billing module.',
    '',
  ];
  await put(file, header.join('\n'));
}

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return result.pid;
}

async function put(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file));
  await writeFile(file, content);
}

async function putIfAbsent(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file));
  try {
    await writeFile(file, content, 'wx');
  } catch (err) {
    if (errorCode(err) !== 'EEXIST') throw err;
  }
}

/** Sets the mtime of a tree, links included (never their targets), children before folders. */
async function age(target: string, when: Date): Promise<void> {
  const stats = await lstatOrNull(target);
  if (!stats) return;
  if (stats.isDirectory())
    for (const entry of await readdirOrEmpty(target)) await age(path.join(target, entry.name), when);
  await lutimes(target, when, when);
}
