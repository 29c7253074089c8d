import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { exists } from './files.mjs';
import { countVerdicts, runJanitor, runProbe } from './janitor.mjs';
import { measure } from './measure.mjs';
import { interleave } from './samples.mjs';
import { refreshWorktree } from './worktrees.mjs';

/**
 * A real `run` that deletes the dead half, against `rm -rf` of the same folders in an identical
 * copy; and the walk-quarantine-remove of the dead session homes alone against rm -rf of those.
 * The dead half is copied aside once (cp -a keeps times). Before every repetition both sides get
 * fresh copies of it, made back to back: here, files written long ago cost the kernel several
 * times more to delete than fresh copies of them, so neither side may get older ones.
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
    for (const [, copy] of rotate(
      [
        ['fleet', () => restore(fleet, pristine)],
        ['twin', () => execFileSync('cp', ['-a', pristine, twin])],
        ['probe', () => copyParents(pristine, relative(fleet.deadSessionHomes), probeTwin)],
      ],
      rep,
    ))
      copy();
    // Both sides delete files that are on disk, not still waiting in the page cache to be written.
    execFileSync('sync');
    log(
      `  (fresh copies of the dead half made and written out in ${((performance.now() - preparing) / 1000).toFixed(0)} s)`,
    );
    await interleave(
      samples,
      1,
      rotate(
        [
          ['delete run', async () => checkDeleted(fleet, await runJanitor(fleet, { reportOnly: false }))],
          [
            'rm -rf',
            async () => {
              const homes = await measure('rm', ['-rf', ...inTwin(twin, fleet.deadSessionHomes)]);
              const rest = await measure('rm', ['-rf', ...inTwin(twin, otherDead)]);
              samples.add('rm -rf session homes', homes);
              return { ...rest, ms: homes.ms + rest.ms, peakRssKb: Math.max(homes.peakRssKb, rest.peakRssKb) };
            },
          ],
          [
            'remove session homes',
            () => runProbe(fleet, 'remove-trees.mjs', inTwin(probeTwin, fleet.deadSessionHomes), 'probe-homes'),
          ],
        ],
        rep,
      ),
      log,
    );
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
