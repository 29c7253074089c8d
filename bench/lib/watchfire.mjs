import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { sessionName } from '../../dist/providers/watchfire/slug.js';
import { ensureDir, put, writeSized } from './files.mjs';

/**
 * Watchfire session homes under `<home>/.watchfire/<backend>-home/<session name>`, laid out as
 * src/providers/watchfire/README.md describes: the prompt, links into the user's real CLI config, and the
 * agent CLI's own session state. Even-numbered homes belong to projects that are no longer in
 * projects.yaml (dead: `project-deleted`); odd ones to a registered, idle project with no session
 * log covering them (`unfinished`, left on disk). The daemon is not running.
 */
const BACKENDS = ['codex', 'copilot', 'opencode', 'gemini'];
const PROJECTS = 5;

export function buildWatchfireRoot(home, user, count, filesPerHome, firstSeed) {
  const root = path.join(home, '.watchfire');
  const registered = Array.from({ length: PROJECTS }, (_, k) => ({
    id: uuidFor(user, k),
    name: `Service ${user} ${k}`,
  }));
  const lines = ['version: 1', 'projects:'];
  registered.forEach((project, index) => {
    lines.push(
      `    - project_id: ${project.id}`,
      `      name: ${JSON.stringify(project.name)}`,
      `      path: /srv/src/${user}-${index}`,
      `      position: ${index}`,
    );
  });
  put(path.join(root, 'projects.yaml'), `${lines.join('\n')}\n`);
  put(path.join(root, 'daemon.lock'), '');
  const config = userConfig(home);
  const dead = [];
  const live = [];
  for (let i = 0; i < count; i += 1) {
    const backend = BACKENDS[i % BACKENDS.length];
    const isDead = i % 2 === 0;
    const projectName = isDead ? `Retired ${user} ${i % 7}` : registered[i % PROJECTS].name;
    const name = sessionName({ projectName, mode: 'task', task: { number: i + 1, title: `Task ${i} for ${backend}` } });
    const folder = path.join(root, `${backend}-home`, name);
    writeHome(folder, backend, config, filesPerHome, firstSeed + i * filesPerHome);
    (isDead ? dead : live).push(folder);
  }
  return { root, dead, live };
}

function writeHome(folder, backend, config, files, seed) {
  ensureDir(folder);
  put(
    path.join(folder, backend === 'gemini' ? 'system.md' : 'AGENTS.md'),
    '# Watchfire system prompt\n\nWork on the task below.\n',
  );
  const links = config[backend];
  for (const [name, target] of links) {
    ensureDir(path.dirname(path.join(folder, name)));
    symlinkSync(target, path.join(folder, name));
  }
  const stateFiles = Math.max(0, files - 1 - links.length);
  let dir = '';
  for (let k = 0; k < stateFiles; k += 1) {
    // Ten files a folder, as a session's days, sessions or message folders would hold them.
    if (k % 10 === 0) {
      dir = path.join(folder, stateFolder(backend, k / 10));
      ensureDir(dir);
    }
    writeSized(path.join(dir, stateFile(backend, k)), seed + k);
  }
}

function stateFolder(backend, group) {
  const day = String(1 + (group % 28)).padStart(2, '0');
  switch (backend) {
    case 'codex':
      return path.join('sessions', '2026', '11', day);
    case 'copilot':
      return path.join('session-state', `7c1e${String(group).padStart(4, '0')}-5d2a-4b8e-9f10-2a3b4c5d6e7f`);
    case 'opencode':
      return path.join('data', 'storage', 'message', `ses_${String(group).padStart(6, '0')}`);
    default:
      return path.join('tmp', `a1b2c3${group}`, 'chats');
  }
}

function stateFile(backend, k) {
  switch (backend) {
    case 'codex':
      return `rollout-2026-11-27T09-${String(k % 60).padStart(2, '0')}-00-${k}.jsonl`;
    case 'copilot':
      return k % 10 === 0 ? 'events.jsonl' : `checkpoint-${k}.json`;
    case 'opencode':
      return `msg_${String(k).padStart(6, '0')}.json`;
    default:
      return `session-${k}.json`;
  }
}

/** The user's own CLI config that homes link into (never touched by a pass). */
function userConfig(home) {
  const file = (relative, content) => {
    const full = path.join(home, relative);
    put(full, content);
    return full;
  };
  return {
    codex: [
      ['auth.json', file('.codex/auth.json', '{"OPENAI_API_KEY":"sk-bench"}\n')],
      ['config.toml', file('.codex/config.toml', 'model = "o3"\n')],
    ],
    copilot: [
      ['config.json', file('.copilot/config.json', '{}\n')],
      ['mcp-config.json', file('.copilot/mcp-config.json', '{"mcpServers":{}}\n')],
    ],
    opencode: [[path.join('config', 'agent'), ensured(path.join(home, '.config', 'opencode', 'agent'))]],
    gemini: [['settings.json', file('.gemini/settings.json', '{}\n')]],
  };
}

function ensured(dir) {
  ensureDir(dir);
  return dir;
}

function uuidFor(user, k) {
  const hex = Buffer.from(`${user}-${k}`).toString('hex').padEnd(32, '0').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
