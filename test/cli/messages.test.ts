import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { world } from '../adversarial/support/watchfire-world.js';
import { CLI, enclosedEnv, runCli } from '../helpers/cli.js';
import { inTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/temp.js';

// The smaller messages, each as a person meets it on the command line: one line that says what is
// wrong in plain words, where it comes from, and what was meant.

const COMMANDS = 'the commands are run, serve, report, demo, config, help';

/** A config file of `body` in a fresh folder, and the environment of that folder. */
function fileOf(body: string): { file: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('aj-messages-');
  const file = path.join(dir, 'agent-janitor.yaml');
  writeFileSync(file, body);
  return { file, env: enclosedEnv(dir) };
}

/** The one line a refused command line prints, without the program's name: exit 2, nothing on stdout. */
async function refusal(args: string[], env: NodeJS.ProcessEnv = enclosedEnv(tempDir('aj-messages-'))) {
  const result = await runCli(args, { env });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^agent-janitor: [^\n]+\n$/);
  return result.stderr.slice('agent-janitor: '.length, -1);
}

describe('the messages of the config file', () => {
  it('a bare number for a duration gets the words --min-age gets', async () => {
    const { file, env } = fileOf('minAge: 5\n');
    const expected = 'expected a duration such as 0s, 90s, 30m, 1h or 7d, got';
    expect(await refusal(['config', '--config', file], env)).toBe(`${file}: minAge: ${expected} 5`);
    expect(await refusal(['config', '--min-age', '5'], env)).toBe(`--min-age: ${expected} "5"`);
  });

  it('one home may be written without a list, like any other path of the config', async () => {
    const { file, env } = fileOf('homes: /tmp\n');
    const result = await runCli(['config', '--config', file], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(parse(result.stdout).homes).toEqual(['/tmp']);
    const other = fileOf('homes: 5\n');
    expect(await refusal(['config', '--config', other.file], other.env)).toBe(
      `${other.file}: homes: expected a path or a list of paths, got 5`,
    );
  });

  it('a cron schedule says which field is wrong and why, in plain words', async () => {
    const { file, env } = fileOf('serve: { schedule: "61 * * * *" }\n');
    expect(await refusal(['config', '--config', file], env)).toBe(
      `${file}: serve.schedule: not a valid cron expression "61 * * * *": the minute field is 61, but it takes 0-59`,
    );
  });

  it('a YAML error ends with its line, column and a short reason, not a dangling colon', async () => {
    const { file, env } = fileOf('homes: [/a\nminAge: 1h\n');
    const line = await refusal(['config', '--config', file], env);
    expect(line).toMatch(new RegExp(`^${file}: not valid YAML at line 2, column 1: [A-Za-z][^:]*[^:\\s]$`));
  });

  it('a missing file says when $AGENT_JANITOR_CONFIG named it', async () => {
    const missing = path.join(tempDir('aj-messages-'), 'gone.yaml');
    const env = { ...enclosedEnv(tempDir('aj-messages-')), AGENT_JANITOR_CONFIG: missing };
    expect(await refusal(['config'], env)).toBe(
      `${missing}: cannot read the config file named by $AGENT_JANITOR_CONFIG: there is no such file`,
    );
    expect(await refusal(['run', '--report-only'], env)).toBe(
      `${missing}: cannot read the config file named by $AGENT_JANITOR_CONFIG: there is no such file`,
    );
    // Named on the command line, it is the command line's.
    expect(await refusal(['config', '--config', missing], env)).toBe(
      `${missing}: cannot read the config file: there is no such file`,
    );
  });
});

describe('a mistyped command', () => {
  it('gets the command within two letters of it, if there is one', async () => {
    expect(await refusal(['rn'])).toBe(`unknown command rn (did you mean run?); ${COMMANDS}`);
    expect(await refusal(['confg', '--home', '/a'])).toBe(`unknown command confg (did you mean config?); ${COMMANDS}`);
    expect(await refusal(['help', 'srve'])).toBe(`unknown command srve (did you mean serve?); ${COMMANDS}`);
    expect(await refusal(['reprot'])).toBe(`unknown command reprot (did you mean report?); ${COMMANDS}`);
    expect(await refusal(['clean'])).toBe(`unknown command clean; ${COMMANDS}`);
  });
});

describe('the log at a terminal', () => {
  it('says its info lines as sentences, not as a dump of JSON', async () => {
    const w = world();
    w.session('gone:chat', { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': 'x'.repeat(4096) });
    w.age();
    const { screen, status } = await inTerminal(
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --config ${JSON.stringify(w.configFile)}`,
    );
    expect(status).toBe(0);
    const info = screen.split('\n').filter((line) => / INFO /.test(line));
    expect(info).toEqual([
      expect.stringMatching(
        /: last proofs taken: [\d,]+ entries of 1 item walked again just before their removal, in [\d.,]+ ms$/,
      ),
      expect.stringMatching(/: deleted 1 item \(4\.\d KiB\)$/),
    ]);
    expect(info.filter((line) => line.includes('{'))).toEqual([]);
  });
});
