/**
 * `agent-janitor config` as an installer's gate: every file a later `run` or `serve` refuses, it
 * refuses first, with the same one line naming the file and the key, exit 2.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const INSTALL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/install.sh');

/** What each file gives, and the line after `<file>: ` that all three commands refuse it with. */
const REFUSED: Array<[string, string]> = [
  [
    'serve: { schedule: "61 * * * *" }',
    'serve.schedule: not a valid cron expression "61 * * * *": the minute field is 61, but it takes 0-59',
  ],
  [
    'serve: { schedule: "every 30 minutes" }',
    'serve.schedule: not a valid cron expression "every 30 minutes": it has 3 fields, but a schedule has 5 (minute, hour, day of the month, month, day of the week), or 6 with the second first',
  ],
  [
    'serve: { schedule: "0 0 30 2 *" }',
    'serve.schedule: not a valid cron expression "0 0 30 2 *": the day of the month field is 30, a day that none of the months it names has, so it would never run',
  ],
  ['serve: { listen: "0.0.0.0:99999" }', 'serve.listen: expected HOST:PORT, such as 0.0.0.0:9464'],
  ['serve: { listen: "[::1" }', 'serve.listen: expected HOST:PORT, such as 0.0.0.0:9464'],
  ['serve: { listen: "a[b]:80" }', 'serve.listen: expected HOST:PORT, such as 0.0.0.0:9464'],
  [
    'metrics: { pushgateway: { url: "pushgateway:9091" } }',
    'metrics.pushgateway.url: Invalid URL: expected http:// or https://, such as http://pushgateway:9091',
  ],
  [
    'metrics: { pushgateway: { url: "ftp://gw:9091" } }',
    'metrics.pushgateway.url: Invalid URL: expected http:// or https://, such as http://pushgateway:9091',
  ],
  [
    'metrics: { pushgateway: { url: "http://user:secret@gw:9091" } }',
    'metrics.pushgateway.url: a Pushgateway URL takes no user, password, query or fragment',
  ],
  [
    'metrics: { pushgateway: { url: "http://gw:9091/?job=x" } }',
    'metrics.pushgateway.url: a Pushgateway URL takes no user, password, query or fragment',
  ],
  ['minAge: soon', 'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got "soon"'],
  ['minAge: 5', 'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got 5'],
  ['serve: { port: 9464 }', 'unknown key serve.port'],
];

/** A config file holding `body`, with homes and reports inside a fresh folder. */
function configFile(body: string): { file: string; reports: string } {
  const dir = tempDir('aj-gate-');
  const home = path.join(dir, 'home');
  mkdirSync(home);
  const reports = path.join(dir, 'reports');
  const file = path.join(dir, 'agent-janitor.yaml');
  writeFileSync(file, `homes: [${JSON.stringify(home)}]\nreportDir: ${JSON.stringify(reports)}\n${body}\n`);
  return { file, reports };
}

describe('agent-janitor config refuses what run and serve refuse', () => {
  it.each(REFUSED)('%s', async (body, line) => {
    const { file, reports } = configFile(body);
    const expected = `agent-janitor: ${file}: ${line}\n`;
    for (const command of [['config'], ['run', '--report-only'], ['serve', '--listen', '127.0.0.1:0']]) {
      const result = await runCli([...command, '--config', file]);
      expect({ command: command[0], code: result.code, stderr: result.stderr }).toEqual({
        command: command[0],
        code: 2,
        stderr: expected,
      });
      expect(result.stdout).toBe('');
    }
    expect(existsSync(reports)).toBe(false);
  });

  it('refuses a report folder on a kernel file system, which a pass refuses before reading anything', async () => {
    const file = path.join(tempDir('aj-gate-'), 'agent-janitor.yaml');
    writeFileSync(file, `homes: [${JSON.stringify(path.dirname(file))}]\nreportDir: /proc/agent-janitor\n`);
    const kernel =
      "the report folder /proc/agent-janitor is on the kernel's proc file system, where no file can be kept";
    const config = await runCli(['config', '--config', file]);
    expect([config.code, config.stderr]).toEqual([2, `agent-janitor: ${file}: reportDir: ${kernel}\n`]);
    const run = await runCli(['run', '--report-only', '--config', file]);
    expect([run.code, run.stderr]).toEqual([2, `agent-janitor: ${file}: reportDir: ${kernel}\n`]);
    const option = await runCli(['config', '--config', configFile('').file, '--report-dir', '/sys/agent-janitor/x']);
    expect([option.code, option.stderr]).toEqual([
      2,
      "agent-janitor: --report-dir: the report folder /sys/agent-janitor/x is on the kernel's sysfs file system, where no file can be kept\n",
    ]);
    expect(existsSync('/proc/agent-janitor')).toBe(false);
  });

  it('takes what they take: schedules with seconds or a nickname, any port, an https URL with a path', async () => {
    const { file } = configFile(
      [
        'serve: { schedule: "*/5 * * * * *", listen: "[::1]:0" }',
        'metrics: { pushgateway: { url: " https://gw.example:9443/push/ " } }',
      ].join('\n'),
    );
    const result = await runCli(['config', '--config', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('url: https://gw.example:9443/push/\n');
    const daily = configFile('serve: { schedule: "@daily", listen: ":65535" }');
    expect((await runCli(['config', '--config', daily.file])).code).toBe(0);
  });

  it('refuses a --pushgateway that the push could not use, naming the option', async () => {
    const { file } = configFile('');
    for (const url of ['gw:9091', 'http://u:p@gw']) {
      const result = await runCli(['config', '--config', file, '--pushgateway', url]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^agent-janitor: --pushgateway: .*, got ${JSON.stringify(url)}\\n$`));
    }
  });

  it('deploy/install.sh installs nothing from a file that serve would refuse', () => {
    const root = tempDir('aj-gate-install-');
    const bin = path.join(root, 'usr/local/bin/agent-janitor');
    mkdirSync(path.dirname(bin), { recursive: true });
    writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
    chmodSync(bin, 0o755);
    for (const body of ['serve: { schedule: "61 * * * *" }', 'metrics: { pushgateway: { url: "gw:9091" } }']) {
      const { file } = configFile(body);
      const install = spawnSync(
        'bash',
        [INSTALL, '--root', root, '--bin', '/usr/local/bin/agent-janitor', '--config', file],
        {
          encoding: 'utf8',
        },
      );
      expect(install.status).toBe(2);
      expect(install.stderr).toContain(`agent-janitor: ${file}: `);
      expect(install.stderr).toContain(
        `install.sh: ${file}: the config is not valid (see above); nothing was installed`,
      );
      expect(existsSync(path.join(root, 'etc'))).toBe(false);
    }
  });
});
