import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { reconcile } from '../../src/reconcile/reconcile.js';
import { loadConfig } from '../../src/config/load.js';
import type { PassOptions } from '../../src/pass/pass.js';
import type { PassProgress } from '../../src/pass/progress.js';
import type { ReportItem } from '../../src/model/types.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { daysAgo } from '../helpers/fs-fixtures.js';
import {
  ageAll,
  configFor,
  machine,
  makeHome,
  writeAgents,
  writeProjects,
  type Machine,
} from '../providers/watchfire/fixture.js';

/** A Watchfire root with `dead` homes of deleted projects and one too recent to go. */
function machineWith(dead: number): Machine {
  const m = machine();
  writeProjects(m, []);
  writeAgents(m, []);
  for (let k = 0; k < dead; k += 1) makeHome(m, 'codex', { projectName: `Retired ${k}`, mode: 'chat' });
  ageAll(m, daysAgo(3));
  makeHome(m, 'codex', { projectName: 'Retired today', mode: 'chat' });
  return m;
}

/** Every call a pass makes on its progress, in order, as `name arg arg`. */
function recording(): { progress: PassProgress; calls: string[] } {
  const calls: string[] = [];
  const progress: PassProgress = {
    gathering: (provider, nth, of) => calls.push(`gathering ${provider} ${nth} ${of}`),
    gathered: (provider, count) => calls.push(`gathered ${provider} ${count}`),
    measured: () => undefined,
    inspecting: (total) => calls.push(`inspecting ${total}`),
    inspected: () => calls.push('inspected'),
    deleting: (total, bytes) => calls.push(`deleting ${total} ${bytes}`),
    settled: (outcome: ReportItem) => calls.push(`settled ${outcome.verdict} ${outcome.bytes}`),
  };
  return { progress, calls };
}

/** The log records of a pass, parsed. */
function memoryLog(): { log: pino.Logger; records: Records } {
  const records: Records = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) records.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), records };
}

type Records = Array<{ level: number; msg: string; [key: string]: unknown }>;

async function passOver(
  m: Machine,
  options: Partial<Pick<PassOptions, 'progress' | 'itemLogLevel' | 'onPlanned' | 'reportOnly'>> = {},
) {
  const file = path.join(m.runDir, 'agent-janitor.yaml');
  writeFileSync(file, stringify(configFor(m)));
  const config = await loadConfig({ providers: PROVIDERS, file, env: process.env });
  const { log, records } = memoryLog();
  const result = await reconcile({
    config,
    providers: PROVIDERS,
    only: ['watchfire'],
    log,
    env: process.env,
    ...options,
    reportOnly: options.reportOnly ?? false,
  });
  return { result, records };
}

describe('what a pass tells its progress', () => {
  it('each phase in order: the provider of how many, the finds, each inspection, each deletion and its bytes', async () => {
    const m = machineWith(3);
    const { progress, calls } = recording();
    const { result } = await passOver(m, { progress });
    const { items } = result.report;
    const deleted = items.filter((item) => item.verdict === 'deleted');
    expect(deleted).toHaveLength(3);
    const bytes = deleted.reduce((sum, item) => sum + item.bytes, 0);
    expect(bytes).toBeGreaterThan(0);
    expect(calls).toEqual([
      'gathering watchfire 1 1',
      `gathered watchfire ${items.length}`,
      `inspecting ${items.length}`,
      ...items.map(() => 'inspected'),
      `deleting 3 ${bytes}`,
      ...deleted.map((item) => `settled deleted ${item.bytes}`),
    ]);
  });

  it('tells nothing of deleting in a pass that deletes nothing', async () => {
    const m = machineWith(0);
    const { progress, calls } = recording();
    await passOver(m, { progress });
    expect(calls.filter((call) => /^(deleting|settled)/.test(call))).toEqual([]);
  });
});

/**
 * One doomed home holds a file the kernel will not let anyone unlink (`chattr +i`, set before the
 * pass, so that nothing changed after it began): its removal breaks, a failure; the others are
 * deleted. The flag comes off again after the pass.
 */
function breakOne(m: Machine): { broken: string; mend: () => void } {
  const homes = path.join(m.root, 'codex-home');
  const broken = path.join(homes, readdirSync(homes).find((name) => name.startsWith('retired-0')) as string);
  execFileSync('chattr', ['+i', path.join(broken, 'AGENTS.md')]);
  return {
    broken,
    mend: () => {
      for (const file of findImmutable(path.dirname(broken))) execFileSync('chattr', ['-i', file]);
    },
  };
}

/** The files chattr +i marked below `dir` (the home is in quarantine by then, under another name). */
function findImmutable(dir: string): string[] {
  const listing = execFileSync('lsattr', ['-R', '-a', dir], { encoding: 'utf8' });
  return listing
    .split('\n')
    .filter((line) => /^\S*i\S* /.test(line))
    .map((line) => line.slice(line.indexOf(' ') + 1))
    .filter((file) => !file.endsWith('/.') && !file.endsWith('/..'));
}

/**
 * After the plan, one doomed home is swapped for a new folder at its path: the executor's re-check
 * stops it (the folder judged must be the folder deleted), a refusal and no failure (rule 23).
 */
function swapOneAfterThePlan(): Pick<PassOptions, 'onPlanned'> & { swapped: () => string } {
  let swapped = '';
  return {
    onPlanned: (items) => {
      swapped = items.find((item) => item.verdict === 'would-delete')?.path as string;
      renameSync(swapped, `${swapped}.moved`);
      mkdirSync(swapped);
    },
    swapped: () => swapped,
  };
}

describe.runIf(process.geteuid?.() === 0)('a pass whose deletion fails', () => {
  it('tells the failure as it ends, among the deletions', async () => {
    const m = machineWith(3);
    const { progress, calls } = recording();
    const { broken, mend } = breakOne(m);
    try {
      const { result } = await passOver(m, { progress });
      expect(result.report.items.find((item) => item.path === broken)?.verdict).toBe('failed');
    } finally {
      mend();
    }
    const settled = calls.filter((call) => call.startsWith('settled')).map((call) => call.split(' ')[1]);
    expect(settled.sort()).toEqual(['deleted', 'deleted', 'failed']);
  });
});

describe('what a pass logs of its deletions', () => {
  const perItem = (records: Records) => records.filter((r) => r.msg === 'deleted');
  const summary = (records: Records) => records.filter((r) => r.msg.startsWith('deleted ') && r.msg !== 'deleted');

  it('a line for each at info, and one for them all', async () => {
    const m = machineWith(3);
    const { result, records } = await passOver(m, {});
    const deleted = result.report.items.filter((item) => item.verdict === 'deleted');
    expect(perItem(records).map((r) => [r.level, (r as { path?: string }).path])).toEqual(
      deleted.map((item) => [30, item.path]),
    );
    const bytes = deleted.reduce((sum, item) => sum + item.bytes, 0);
    expect(summary(records)).toMatchObject([
      { level: 30, deleted: 3, bytes, msg: expect.stringMatching(/^deleted 3 items \(/) },
    ]);
  });

  it.runIf(process.geteuid?.() === 0)('the one for them all counts the failures', async () => {
    const m = machineWith(3);
    const breaking = breakOne(m);
    let records: Records;
    try {
      ({ records } = await passOver(m, {}));
    } finally {
      breaking.mend();
    }
    expect(summary(records)).toMatchObject([
      {
        level: 30,
        planned: 3,
        deleted: 2,
        failed: 1,
        leftAlone: 0,
        msg: expect.stringMatching(/^deleted 2 items \(.+\), 1 failed$/),
      },
    ]);
  });

  it('and the ones a re-check stopped, apart from the failures', async () => {
    const m = machineWith(3);
    const swapping = swapOneAfterThePlan();
    const { result, records } = await passOver(m, { onPlanned: swapping.onPlanned });
    expect(result.report.items.find((item) => item.path === swapping.swapped())?.verdict).toBe('refused');
    expect(summary(records)).toMatchObject([{ level: 30, planned: 3, deleted: 2, failed: 0, leftAlone: 1 }]);
  });

  it('none in a report-only pass', async () => {
    const m = machineWith(3);
    const { records } = await passOver(m, { reportOnly: true });
    expect(summary(records)).toEqual([]);
    expect(perItem(records)).toEqual([]);
  });

  it('the line of each at debug when asked, the one for them all still at info', async () => {
    const m = machineWith(2);
    const { records } = await passOver(m, { itemLogLevel: 'debug' });
    expect(perItem(records).map((r) => r.level)).toEqual([20, 20]);
    expect(summary(records)).toMatchObject([{ level: 30, deleted: 2 }]);
  });
});
