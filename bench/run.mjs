#!/usr/bin/env node
// `npm run bench`: builds a fleet of agent scratch in a temp folder and measures agent-janitor
// against du, rm and git on it. Not a test: it prints a table and writes bench/results.md.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, scaled, USAGE } from './lib/args.mjs';
import { buildFleet } from './lib/fleet.mjs';
import { REPO } from './lib/janitor.mjs';
import { deletePhase } from './lib/delete-phase.mjs';
import { buildLeaks } from './lib/leaks.mjs';
import {
  gitChecksPhase,
  leaksPhase,
  millionPhase,
  reportOnlyPhase,
  scalingPhase,
  startupPhase,
} from './lib/phases.mjs';
import { buildRows, machine, renderSamples, renderTable, writeSection } from './lib/results.mjs';
import { Samples } from './lib/samples.mjs';

const begun = performance.now();
const log = (line) =>
  process.stderr.write(`[${String(Math.round((performance.now() - begun) / 1000)).padStart(4)} s] ${line}\n`);

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!options) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const dir = options.dir ? path.resolve(options.dir) : mkdtempSync(path.join(os.tmpdir(), 'aj-bench-'));
  const out = options.out ? path.resolve(options.out) : path.join(REPO, 'bench', 'results.md');
  const loadBefore = os.loadavg()[0];
  const started = Date.now();
  const previous = options.previous ? path.resolve(options.previous) : null;
  if (options.startup) {
    try {
      await startupOnly(dir, out, options.reps, previous, loadBefore, started);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  try {
    log(`building the fleet in ${dir} …`);
    const buildStart = performance.now();
    const fleet = buildFleet(dir, options);
    const buildSeconds = (performance.now() - buildStart) / 1000;
    log(`built ${fleet.entries.toLocaleString('en')} entries in ${buildSeconds.toFixed(0)} s`);

    const samples = new Samples();
    if (options.million) {
      log('report-only pass at full size …');
      await millionPhase(fleet, samples, options.reps, log);
    } else {
      log('report-only passes against du -sb …');
      await reportOnlyPhase(fleet, samples, options.reps, log);
      log(
        `the same with ${options.leakSnapshots} opencode repositories of git garbage and ${options.leakSessions} Claude Code sessions' task output …`,
      );
      fleet.leaks = buildLeaks(fleet, { snapshots: options.leakSnapshots, sessions: options.leakSessions });
      await leaksPhase(fleet, samples, options.reps, log);
      log('git checks against a git status loop …');
      await gitChecksPhase(fleet, samples, options.reps, log);
      log('the walk at N and 4N …');
      await scalingPhase(fleet, samples, options.reps + 2, log);
      const deleteSize = scaled(options, options.deleteFraction);
      log(`building the fleet for deleting passes (${options.deleteFraction} of the sizes) …`);
      const deleteFleet = buildFleet(path.join(dir, 'delete-fleet'), deleteSize);
      fleet.deleteFleet = deleteFleet;
      fleet.deleteSize = deleteSize;
      log(`built ${deleteFleet.entries.toLocaleString('en')} entries; deleting passes against rm -rf …`);
      await deletePhase(deleteFleet, samples, options.reps, log);
      log('startup …');
      await startupPhase(fleet.dir, samples, startupReps(options.reps), log, previous);
    }

    const table = renderTable(buildRows(samples, fleet));
    process.stdout.write(`\n${table}\n`);
    const name = options.million ? 'million' : 'default';
    const describe = (sizes) =>
      `${sizes.homes.toLocaleString('en')} session homes of ${sizes.filesPerHome} files, ${sizes.kilo} checkpoint repositories of about ${sizes.kiloFiles} files, ${sizes.worktrees} worktrees of about ${sizes.worktreeFiles} files${sizes.cline > 0 ? `, ${sizes.cline} Cline checkpoint repositories of about ${sizes.clineFiles} files` : ''}`;
    const size = describe(options);
    const deleteNote = fleet.deleteFleet
      ? ` The deleting passes ran on a fleet of ${describe(fleet.deleteSize)} (${fleet.deleteFleet.entries.toLocaleString('en')} entries, half of them dead), copied back after each pass.`
      : '';
    writeSection(
      out,
      name,
      [
        `## ${options.million ? 'At 1,000,000 files (`npm run bench -- --million`)' : 'Default fleet (`npm run bench`)'}`,
        '',
        `Run on ${new Date(started).toISOString()}; fleet: ${size}: ${fleet.entries.toLocaleString('en')} entries, built in ${buildSeconds.toFixed(0)} s.${deleteNote}`,
        `Machine: ${machine()}; load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after (a shared machine: the ratios, taken in one run and interleaved, are the figures to read).`,
        options.million
          ? `${options.reps === 1 ? 'One pass and one du' : `Medians of ${options.reps} repetitions`}.`
          : `Medians of ${options.reps} repetition${options.reps === 1 ? '' : 's'} (the N/4N walk: ${options.reps + 2}; the start-up rows: ${startupReps(options.reps)}).`,
        '',
        table,
        '',
        '<details><summary>Every repetition</summary>',
        '',
        renderSamples(samples),
        '',
        '</details>',
      ].join('\n'),
    );
    log(`written to ${out}`);
  } finally {
    if (options.keep) log(`fleet kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});

/** `--startup`: the start-up rows alone, in a section of their own. */
async function startupOnly(dir, out, reps, previous, loadBefore, started) {
  const samples = new Samples();
  log('startup …');
  await startupPhase(dir, samples, startupReps(reps), log, previous);
  const table = renderTable(buildRows(samples, {}));
  process.stdout.write(`\n${table}\n`);
  writeSection(
    out,
    'startup',
    [
      '## Start-up alone (`npm run bench -- --startup`)',
      '',
      `Run on ${new Date(started).toISOString()}${previous ? ', beside the build that `--previous` named' : ''}.`,
      `Machine: ${machine()}; load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after.`,
      `Medians of ${startupReps(reps)} starts, interleaved.`,
      '',
      table,
      '',
      '<details><summary>Every repetition</summary>',
      '',
      renderSamples(samples),
      '',
      '</details>',
    ].join('\n'),
  );
  log(`written to ${out}`);
}

/**
 * A start takes a fraction of a second, and this machine's noise between three of them is wider
 * than the distance to the target: the start-up rows take seven times the repetitions, interleaved
 * as every row is (a few seconds in all).
 */
function startupReps(reps) {
  return reps * 7;
}
