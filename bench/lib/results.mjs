import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const seconds = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'n/a');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
const times = (value) => (Number.isFinite(value) ? `${value.toFixed(2)} ×` : 'n/a');
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

/** One row of the table: what, ours, the baseline, the ratio, the target, and whether it is met. */
function row(what, ours, baseline, value, target, met) {
  return { what, ours, baseline, value, target, met };
}

export function buildRows(samples, fleet) {
  const rows = [];
  const pair = (what, ours, base, baseName, target, limit) => {
    if (samples.all(ours).length === 0 || samples.all(base).length === 0) return;
    const value = ratio(samples.median(ours), samples.median(base));
    rows.push(
      row(
        what,
        seconds(samples.median(ours)),
        `${baseName} ${seconds(samples.median(base))}`,
        times(value),
        target,
        limit === undefined ? null : value <= limit,
      ),
    );
  };
  if (samples.all('report-only').length > 0) {
    pair('`run --report-only`, whole fleet (process)', 'report-only', 'du', '`du -sb`', '≤ 1.5 ×', 1.5);
    pair(
      '`run --report-only --only watchfire` (session homes)',
      'report-only session homes',
      'du session homes',
      '`du -sb`',
      '—',
    );
    pair(
      '`run --report-only` measuring the footprint, against the same pass without it (process)',
      'report-only',
      'report-only, no footprint',
      '`footprint: { enabled: false }`',
      '≤ 1.10 ×',
      1.1,
    );
    pair(
      '`run --report-only` with the providers `copilot` and `goose`, against the same pass without them (process)',
      'report-only',
      'report-only, older providers',
      '`enabled: false` for both',
      '≤ 1.10 ×',
      1.1,
    );
    pair(
      '`run --report-only` with 500 processes holding 50,000 files open (process)',
      'report-only, busy host',
      'report-only',
      '`run --report-only` without them',
      '≤ 1.10 ×',
      1.1,
    );
    if (samples.all('report-only with leaks').length > 0) {
      const { snapshots, sessions } = fleet.leaks;
      pair(
        `\`run --report-only\` with ${snapshots} opencode repositories of git garbage and ${sessions.toLocaleString('en')} Claude Code task folders added (process)`,
        'report-only with leaks',
        'du with leaks',
        '`du -sb`',
        '—',
      );
      const grown = ratio(
        ratio(samples.median('report-only with leaks'), samples.median('du with leaks')),
        ratio(samples.median('report-only'), samples.median('du')),
      );
      rows.push(
        row(
          "its ratio to `du -sb`, against the fleet's without them",
          times(ratio(samples.median('report-only with leaks'), samples.median('du with leaks'))),
          times(ratio(samples.median('report-only'), samples.median('du'))),
          times(grown),
          '≤ 1.10 ×',
          grown <= 1.1,
        ),
      );
    }
    pair('the walk alone (`measureTree`, process)', 'walk', 'du', '`du -sb`', '—');
    pair('floor: bare Node `readdirSync`+`lstatSync` loop (process)', 'node lstat loop', 'du', '`du -sb`', '—');
    pair(
      'the walk ahead: GNU find beside the walk, which takes over the last folders (process)',
      'walk ahead',
      'du',
      '`du -sb`',
      '—',
    );
  }
  if (samples.all('delete run').length > 0) {
    const entries = fleet.deleteFleet ? ` (${fleet.deleteFleet.entries.toLocaleString('en')} entries, half dead)` : '';
    pair(`\`run\` deleting the dead half${entries} (process)`, 'delete run', 'rm -rf', '`rm -rf`', '≤ 1.5 ×', 1.5);
    const proofs = samples.all('delete run').filter((result) => result.proof);
    if (proofs.length > 0) {
      const proofMs = samples.median('delete run', (result) => result.proof?.ms ?? Number.NaN);
      const share = ratio(proofMs, samples.median('delete run'));
      const { entries: walked } = proofs[0].proof;
      rows.push(
        row(
          `its last proofs: the executor's walk of every quarantined tree before the first unlink (${walked.toLocaleString('en')} entries, ${Math.round(share * 100)} % of the run)`,
          seconds(proofMs),
          `\`rm -rf\` ${seconds(samples.median('rm -rf'))}`,
          times(ratio(proofMs, samples.median('rm -rf'))),
          '—',
          null,
        ),
      );
    }
    pair(
      'walk + quarantine + last proof + remove of its dead session homes (process)',
      'remove session homes',
      'rm -rf session homes',
      '`rm -rf`',
      '—',
    );
  }
  if (samples.all('git checks').length > 0) {
    const concurrency = samples.all('git checks')[0].printed.concurrency;
    const inProcess = (result) => result.printed.ms;
    const value = ratio(samples.median('git checks', inProcess), samples.median('git status loop'));
    rows.push(
      row(
        `git checks of ${fleet.worktrees.length} worktrees (in process, ${concurrency} at once)`,
        seconds(samples.median('git checks', inProcess)),
        `\`git status --porcelain\` loop ${seconds(samples.median('git status loop'))}`,
        times(value),
        '≤ 1.0 ×',
        value <= 1.0,
      ),
    );
  }
  if (samples.all('walk 4N').length > 0) {
    const inProcess = (result) => result.printed.ms;
    const n = samples.all('walk N')[0].printed.entries;
    const n4 = samples.all('walk 4N')[0].printed.entries;
    const value = ratio(samples.median('walk 4N', inProcess), samples.median('walk N', inProcess));
    rows.push(
      row(
        `walk time, ${n4.toLocaleString('en')} vs ${n.toLocaleString('en')} entries (${(n4 / n).toFixed(2)} ×, in process, fastest of three after a first walk)`,
        seconds(samples.median('walk 4N', inProcess)),
        seconds(samples.median('walk N', inProcess)),
        times(value),
        '3.6–4.4 ×',
        value >= 3.6 && value <= 4.4,
      ),
    );
    const cold = (result) => result.printed.coldMs;
    const coldValue = ratio(samples.median('walk 4N', cold), samples.median('walk N', cold));
    rows.push(
      row(
        'the same, first walk of a fresh process (JIT and heap still warming up)',
        seconds(samples.median('walk 4N', cold)),
        seconds(samples.median('walk N', cold)),
        times(coldValue),
        '—',
        null,
      ),
    );
  }
  const passes = ['report-only', 'report-only session homes', 'delete run'].filter(
    (label) => samples.all(label).length > 0,
  );
  if (passes.length > 0) {
    const peak = Math.max(...passes.map((label) => samples.max(label, (result) => result.peakRssKb)));
    rows.push(
      row(
        `peak RSS of a pass (${fleet.entries.toLocaleString('en')} entries)`,
        mb(peak),
        '',
        '',
        '≤ 150 MB at 1,000,000 files',
        peak <= 150 * 1024,
      ),
    );
    const fds = Math.max(...passes.map((label) => samples.max(label, (result) => result.maxFds)));
    const dirFds = Math.max(...passes.map((label) => samples.max(label, (result) => result.maxDirFds)));
    const children = Math.max(...passes.map((label) => samples.max(label, (result) => result.maxChildren)));
    rows.push(
      row(
        'most open descriptors / directory descriptors / child processes seen in a pass',
        `${fds} / ${dirFds} / ${children}`,
        '',
        '',
        'bounded',
        null,
      ),
    );
  }
  if (samples.all('cli --version').length > 0) {
    pair('fixed cost: `run --report-only` over an empty home (process)', 'empty pass', 'node -e 0', '`node -e 0`', '—');
    pair('start-up alone: `agent-janitor --version` (process)', 'cli --version', 'node -e 0', '`node -e 0`', '—');
    pair('`--version` against the previous build (process)', 'cli --version', 'previous --version', 'previous', '—');
    pair(
      'empty `run --report-only` against the previous build (process)',
      'empty pass',
      'previous empty pass',
      'previous',
      '—',
    );
  }
  return rows;
}

export function renderTable(rows) {
  const lines = [
    '| measurement | agent-janitor | baseline | ratio | target | met |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.what} | ${r.ours} | ${r.baseline} | ${r.value} | ${r.target} | ${r.met === null ? '' : r.met ? 'yes' : '**no**'} |`,
    );
  return lines.join('\n');
}

export function renderSamples(samples) {
  const lines = [
    '| measurement | every repetition (wall seconds) | peak RSS | most fds / dir fds / children |',
    '| --- | --- | --- | --- |',
  ];
  for (const label of samples.labels()) {
    const all = samples.all(label);
    const walls = all.map((result) => (result.ms / 1000).toFixed(2)).join(', ');
    const peak = Math.max(...all.map((result) => result.peakRssKb ?? 0));
    const handles = `${Math.max(...all.map((r) => r.maxFds ?? 0))} / ${Math.max(...all.map((r) => r.maxDirFds ?? 0))} / ${Math.max(...all.map((r) => r.maxChildren ?? 0))}`;
    lines.push(`| ${label} | ${walls} | ${mb(peak)} | ${handles} |`);
  }
  return lines.join('\n');
}

export function machine() {
  const fsType = (() => {
    try {
      return execFileSync('findmnt', ['-n', '-o', 'FSTYPE', '-T', os.tmpdir()], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const git = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  return `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${mb(os.totalmem() / 1024)} RAM, Linux ${os.release()}, ${fsType} under ${os.tmpdir()}, Node ${process.version}, ${git}`;
}

/** Replaces the section between `<!-- bench:NAME -->` markers, or appends it. */
export function writeSection(file, name, body) {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# agent-janitor benchmark results\n';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from !== -1 && to > from) text = `${text.slice(0, from)}${block}${text.slice(to + end.length)}`;
  else text = `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
  // Laid out as `npm test`'s format check wants it, so a run leaves the tree clean. A file outside
  // the project (`--out`) is not the formatter's: it stays as written.
  try {
    execFileSync(
      fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url)),
      ['format', '--write', file],
      {
        stdio: 'ignore',
      },
    );
  } catch {}
}
