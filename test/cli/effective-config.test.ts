import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/** `config` as a pass would read it: stdout parsed, and its keys in the order printed. */
async function effective(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const result = await runCli(['config', ...args], { env, ...(cwd ? { cwd } : {}) });
  expect(result.code, result.stderr).toBe(0);
  const config = parse(result.stdout) as Record<string, unknown>;
  return { config, keys: Object.keys(config) };
}

describe('agent-janitor config prints the whole effective config', () => {
  it('homes and reportDir first, with the flags and the defaults a pass would use', async () => {
    const dir = tempDir('aj-effective-');
    const home = path.join(dir, 'home');
    const state = path.join(dir, 'state');
    const env = { HOME: home, XDG_STATE_HOME: state, AGENT_JANITOR_CONFIG: '' };
    const neither = path.join(dir, 'neither.yaml');
    writeFileSync(neither, 'minAge: 2h\n');

    // No file, and a file that sets neither key: the defaults of the environment.
    for (const args of [[], ['--config', neither]]) {
      const { config, keys } = await effective(args, env);
      expect(keys.slice(0, 3)).toEqual(['homes', 'minAge', 'reportDir']);
      const reportDir = process.geteuid?.() === 0 ? '/var/lib/agent-janitor' : path.join(state, 'agent-janitor');
      expect(config).toMatchObject({ homes: [home], reportDir });
    }
    // The flags replace them.
    for (const args of [[], ['--config', neither]]) {
      const { config } = await effective([...args, '--home', '/a', '--report-dir', '/x/y'], env);
      expect(config).toMatchObject({ homes: ['/a'], reportDir: '/x/y' });
    }
    // Paths as the pass reads them: relative to where it runs, `~` the home.
    const { config } = await effective(
      ['--home', 'rel', '--report-dir', 'reports', '--metrics-file', 'm/agent_janitor.prom'],
      env,
      dir,
    );
    expect(config).toMatchObject({
      homes: [path.join(dir, 'rel')],
      reportDir: path.join(dir, 'reports'),
      metrics: { textfile: path.join(dir, 'm', 'agent_janitor.prom') },
    });
    const tilde = path.join(dir, 'tilde.yaml');
    writeFileSync(tilde, 'homes: ["~"]\nreportDir: ~/reports\nmetrics: { textfile: ~/m.prom }\n');
    expect((await effective(['--config', tilde], env)).config).toMatchObject({
      homes: [home],
      reportDir: path.join(home, 'reports'),
      metrics: { textfile: path.join(home, 'm.prom') },
    });
  });
});
