import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { exists } from './files.mjs';
import { countVerdicts, CLI, runJanitor, runProbe } from './janitor.mjs';
import { measure } from './measure.mjs';
import { interleave } from './samples.mjs';
import { refreshWorktree } from './worktrees.mjs';

/** `run --report-only` against `du -sb` over the same roots, with the walk alone and a bare Node loop beside them. */
export async function reportOnlyPhase(fleet, samples, reps, log) {
  const expected = fleet.deadItems.length;
  await interleave(samples, reps, [
    ['report-only', async () => checkReportOnly(await runJanitor(fleet, { reportOnly: true }), expected)],
    ['du', () => measure('du', ['-sb', ...fleet.roots])],
    ['report-only session homes', () => runJanitor(fleet, { reportOnly: true, extra: ['--only', 'watchfire'] })],
    ['du session homes', () => measure('du', ['-sb', ...fleet.watchfireRoots])],
    ['walk', () => runProbe(fleet, 'janitor-walk.mjs', fleet.roots, 'roots')],
    ['node lstat loop', () => runProbe(fleet, 'floor-walk.mjs', fleet.roots, 'roots')],
  ], log);
  const walk = samples.all('walk')[0].printed;
  const floor = samples.all('node lstat loop')[0].printed;
  if (walk.bytes !== floor.bytes || walk.entries !== floor.entries) {
    throw new Error(`the walk and the bare loop disagree: ${JSON.stringify(walk)} vs ${JSON.stringify(floor)}`);
  }
}

function checkReportOnly(result, expected) {
  const counts = countVerdicts(result.report);
  if ((counts['would-delete'] ?? 0) !== expected) throw new Error(`report-only: expected ${expected} would-delete, found ${JSON.stringify(counts)}`);
  return result;
}

/** The worktree engine's git checks against a sequential shell loop of `git status --porcelain`. */
export async function gitChecksPhase(fleet, samples, reps, log) {
  const loop = 'for w in "$@"; do git -C "$w" status --porcelain >/dev/null || exit 1; done';
  await interleave(samples, reps, [
    ['git checks', () => runProbe(fleet, 'git-checks.mjs', fleet.worktrees, 'worktrees')],
    ['git status loop', () => measure('bash', ['-c', loop, 'loop', ...fleet.worktrees], { env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } })],
  ], log);
}

/** The same walk over the first quarter of the session homes (every backend, dead and live) and over all of them. */
export async function scalingPhase(fleet, samples, reps, log) {
  const quarter = fleet.sessionHomes.slice(0, Math.round(fleet.sessionHomes.length / 4));
  await interleave(samples, reps, [
    ['walk N', () => runProbe(fleet, 'janitor-walk.mjs', quarter, 'quarter', ['--warm'])],
    ['walk 4N', () => runProbe(fleet, 'janitor-walk.mjs', fleet.sessionHomes, 'all-homes', ['--warm'])],
  ], log);
}

/**
 * A real `run` that deletes the dead half, against `rm -rf` of the same folders in an identical
 * copy; and the walk-quarantine-remove of the dead session homes alone against rm -rf of those.
 * The dead half is copied aside once (cp -a keeps times). Before every repetition both sides get
 * fresh copies of it, made back to back: deleting files that were written long ago costs the
 * kernel more (their block bitmaps are no longer cached), so neither side may get older ones.
 */
export async function deletePhase(fleet, samples, reps, log) {
  const relative = (paths) => paths.map((entry) => path.relative(fleet.dir, entry));
  const pristine = path.join(fleet.dir, 'pristine');
  copyParents(fleet.dir, relative(fleet.dead), pristine);
  const deadSessionHomes = new Set(fleet.deadSessionHomes);
  const otherDead = fleet.dead.filter((entry) => !deadSessionHomes.has(entry));
  const inTwin = (root, paths) => relative(paths).map((entry) => path.join(root, entry));
  for (let rep = 0; rep < reps; rep += 1) {
    const twin = path.join(fleet.dir, `twin-${rep}`);
    const probeTwin = path.join(fleet.dir, `probe-${rep}`);
    const preparing = performance.now();
    execFileSync('rm', ['-rf', ...fleet.dead]);
    for (const [, copy] of rotate([
      ['fleet', () => restore(fleet, pristine)],
      ['twin', () => execFileSync('cp', ['-a', pristine, twin])],
      ['probe', () => copyParents(pristine, relative(fleet.deadSessionHomes), probeTwin)],
    ], rep)) copy();
    // Both sides delete files that are on disk, not still waiting in the page cache to be written.
    execFileSync('sync');
    log(`  (fresh copies of the dead half made and written out in ${((performance.now() - preparing) / 1000).toFixed(0)} s)`);
    await interleave(samples, 1, rotate([
      ['delete run', async () => checkDeleted(fleet, await runJanitor(fleet, { reportOnly: false }))],
      ['rm -rf', async () => {
        const homes = await measure('rm', ['-rf', ...inTwin(twin, fleet.deadSessionHomes)]);
        const rest = await measure('rm', ['-rf', ...inTwin(twin, otherDead)]);
        samples.add('rm -rf session homes', homes);
        return { ...rest, ms: homes.ms + rest.ms, peakRssKb: Math.max(homes.peakRssKb, rest.peakRssKb) };
      }],
      ['remove session homes', () => runProbe(fleet, 'remove-trees.mjs', inTwin(probeTwin, fleet.deadSessionHomes), 'probe-homes')],
    ], rep), log);
    rmSync(twin, { recursive: true, force: true });
    rmSync(probeTwin, { recursive: true, force: true });
  }
  rmSync(pristine, { recursive: true, force: true });
}

function rotate(tasks, by) {
  return tasks.map((_, index) => tasks[(index + by) % tasks.length]);
}

function checkDeleted(fleet, result) {
  const counts = countVerdicts(result.report);
  if ((counts.deleted ?? 0) !== fleet.deadItems.length || (counts.failed ?? 0) !== 0) {
    throw new Error(`delete run: expected ${fleet.deadItems.length} deleted, found ${JSON.stringify(counts)}`);
  }
  const survivor = fleet.dead.find(exists);
  if (survivor) throw new Error(`delete run left ${survivor}`);
  const lost = fleet.live.find((entry) => !exists(entry));
  if (lost) throw new Error(`delete run removed live ${lost}`);
  return result;
}

/** Copies the dead half into the fleet and lets git record the copies' stat data. */
function restore(fleet, pristine) {
  execFileSync('cp', ['-a', `${pristine}/.`, `${fleet.dir}/`]);
  for (const { worktree, admin } of fleet.deadWorktrees) refreshWorktree(worktree, admin, fleet.old);
  const missing = fleet.dead.find((entry) => !exists(entry));
  if (missing) throw new Error(`restore did not bring back ${missing}`);
}

/** `cp -a --parents` in chunks: the same relative paths under `to`, times and modes kept. */
function copyParents(from, relativePaths, to) {
  execFileSync('mkdir', ['-p', to]);
  for (let i = 0; i < relativePaths.length; i += 500) {
    execFileSync('cp', ['-a', '--parents', ...relativePaths.slice(i, i + 500), to], { cwd: from });
  }
}

/** How long the CLI takes to start and exit, against Node itself. */
export async function startupPhase(samples, reps, log) {
  await interleave(samples, reps, [
    ['cli --version', () => measure(process.execPath, [CLI, '--version'])],
    ['node -e 0', () => measure(process.execPath, ['-e', '0'])],
  ], log);
}

/** At the largest size: one report-only pass and one du, for memory, handles and time. */
export async function millionPhase(fleet, samples, reps, log) {
  await interleave(samples, reps, [
    ['report-only', () => runJanitor(fleet, { reportOnly: true })],
    ['du', () => measure('du', ['-sb', ...fleet.roots])],
  ], log);
}
