import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HOLDERS, startHolders } from './holders.mjs';
import { countVerdicts, CLI, runJanitor, runProbe } from './janitor.mjs';
import { measure } from './measure.mjs';
import { interleave } from './samples.mjs';

/**
 * `run --report-only` against `du -sb` over the same roots, with the walk alone, the walk ahead (GNU
 * find beside it) and a bare Node loop beside them, the same pass with the footprint turned off
 * (what the footprint costs) and without the newest providers (what they cost), and the same pass on a host where 500 processes hold 50,000 files open (the
 * /proc scan by path and identity, and each walked entry looked up among those files).
 */
export async function reportOnlyPhase(fleet, samples, reps, log) {
  const expected = fleet.deadItems.length;
  await interleave(
    samples,
    reps,
    [
      [
        'report-only',
        async () => withFootprint(checkReportOnly(await runJanitor(fleet, { reportOnly: true }), expected)),
      ],
      [
        'report-only, no footprint',
        async () =>
          checkReportOnly(
            await runJanitor({ ...fleet, config: fleet.configNoFootprint }, { reportOnly: true }),
            expected,
          ),
      ],
      [
        'report-only, older providers',
        async () =>
          checkReportOnly(
            await runJanitor({ ...fleet, config: fleet.configOlderProviders }, { reportOnly: true }),
            expected,
          ),
      ],
      ['report-only, busy host', () => busyHostPass(fleet, expected)],
      ['du', () => measure('du', ['-sb', ...fleet.roots])],
      ['report-only session homes', () => runJanitor(fleet, { reportOnly: true, extra: ['--only', 'watchfire'] })],
      ['du session homes', () => measure('du', ['-sb', ...fleet.watchfireRoots])],
      ['walk', () => runProbe(fleet, 'janitor-walk.mjs', fleet.roots, 'roots')],
      ['node lstat loop', () => runProbe(fleet, 'floor-walk.mjs', fleet.roots, 'roots')],
      ['walk ahead', () => runProbe(fleet, 'walk-ahead.mjs', fleet.roots, 'roots')],
    ],
    log,
  );
  const walk = samples.all('walk')[0].printed;
  for (const other of ['node lstat loop', 'walk ahead']) {
    const printed = samples.all(other)[0].printed;
    if (walk.bytes !== printed.bytes || walk.entries !== printed.entries)
      throw new Error(`the walk and the ${other} disagree: ${JSON.stringify(walk)} vs ${JSON.stringify(printed)}`);
  }
}

async function busyHostPass(fleet, expected) {
  const stop = await startHolders(fleet.dir);
  try {
    const result = checkReportOnly(await runJanitor(fleet, { reportOnly: true }), expected);
    const { inspected } = result.report.processCheck;
    if (inspected < HOLDERS)
      throw new Error(`busy host: the pass inspected ${inspected} processes, fewer than the ${HOLDERS} holders`);
    return result;
  } finally {
    await stop();
  }
}

/** The pass measured the footprint: an entry for each of the fleet's providers' scratch at least. */
function withFootprint(result) {
  const scratch = (result.report.footprint ?? []).filter((entry) => entry.category === 'scratch');
  if (scratch.length < 3)
    throw new Error(`report-only: the footprint is missing: ${JSON.stringify(result.report.footprint)}`);
  return result;
}

function checkReportOnly(result, expected) {
  const counts = countVerdicts(result.report);
  if ((counts['would-delete'] ?? 0) !== expected)
    throw new Error(`report-only: expected ${expected} would-delete, found ${JSON.stringify(counts)}`);
  return result;
}

/**
 * The same report-only pass with the leaks of bench/lib/leaks.mjs added (git garbage in live
 * opencode repositories, ended Claude Code sessions' task output), against `du -sb` of the same
 * roots: its ratio is held to the fleet's without them, measured in the same run.
 */
export async function leaksPhase(fleet, samples, reps, log) {
  const { leaks } = fleet;
  const withLeaks = { ...fleet, config: leaks.config };
  const expected = fleet.deadItems.length + leaks.deadItems;
  await interleave(
    samples,
    reps,
    [
      [
        'report-only with leaks',
        async () => checkReportOnly(await runJanitor(withLeaks, { reportOnly: true }), expected),
      ],
      ['du with leaks', () => measure('du', ['-sb', ...fleet.roots, ...leaks.roots])],
    ],
    log,
  );
}

/** The worktree engine's git checks against a sequential shell loop of `git status --porcelain`. */
export async function gitChecksPhase(fleet, samples, reps, log) {
  const loop = 'for w in "$@"; do git -C "$w" status --porcelain >/dev/null || exit 1; done';
  await interleave(
    samples,
    reps,
    [
      ['git checks', () => runProbe(fleet, 'git-checks.mjs', fleet.worktrees, 'worktrees')],
      [
        'git status loop',
        () =>
          measure('bash', ['-c', loop, 'loop', ...fleet.worktrees], {
            env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
          }),
      ],
    ],
    log,
  );
}

/** The same walk over the first quarter of the session homes (every backend, dead and live) and over all of them. */
export async function scalingPhase(fleet, samples, reps, log) {
  const quarter = fleet.sessionHomes.slice(0, Math.round(fleet.sessionHomes.length / 4));
  await interleave(
    samples,
    reps,
    [
      ['walk N', () => runProbe(fleet, 'janitor-walk.mjs', quarter, 'quarter', ['--warm'])],
      ['walk 4N', () => runProbe(fleet, 'janitor-walk.mjs', fleet.sessionHomes, 'all-homes', ['--warm'])],
    ],
    log,
  );
}

/**
 * What every pass pays whatever the fleet: a report-only `run` over an empty home (start-up, config,
 * run lock, /proc scan, report), and `--version` (start-up alone), against Node itself.
 */
export async function startupPhase(dir, samples, reps, log, previous) {
  const empty = path.join(dir, 'empty');
  mkdirSync(path.join(empty, 'home'), { recursive: true });
  mkdirSync(path.join(empty, 'reports'), { recursive: true });
  const config = path.join(empty, 'agent-janitor.yaml');
  writeFileSync(config, `homes: [${JSON.stringify(path.join(empty, 'home'))}]\n`);
  const emptyPass = (cli) =>
    measure(process.execPath, [
      cli,
      'run',
      '--report-only',
      '--config',
      config,
      '--report-dir',
      path.join(empty, 'reports'),
    ]);
  const starts = [
    ['empty pass', () => emptyPass(CLI)],
    ['cli --version', () => measure(process.execPath, [CLI, '--version'])],
    ['node -e 0', () => measure(process.execPath, ['-e', '0'])],
  ];
  // The same starts of another build, interleaved with this one's.
  if (previous)
    starts.push(
      ['previous empty pass', () => emptyPass(previous)],
      ['previous --version', () => measure(process.execPath, [previous, '--version'])],
    );
  await interleave(samples, reps, starts, log);
}

/** At the largest size: one report-only pass and one du, for memory, handles and time. */
export async function millionPhase(fleet, samples, reps, log) {
  await interleave(
    samples,
    reps,
    [
      ['report-only', () => runJanitor(fleet, { reportOnly: true })],
      ['du', () => measure('du', ['-sb', ...fleet.roots])],
    ],
    log,
  );
}
