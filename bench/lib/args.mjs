/** The bench's flags: fleet size, repetitions, where to build, what to keep. */
const DEFAULTS = {
  homes: 2000,
  filesPerHome: 50,
  kilo: 100,
  kiloFiles: 1000,
  worktrees: 100,
  worktreeFiles: 1000,
  cline: 100,
  clineFiles: 1000,
  leakSnapshots: 100,
  leakSessions: 1000,
  reps: 3,
  deleteFraction: 0.25,
  dir: null,
  keep: false,
  million: false,
  startup: false,
  previous: null,
  out: null,
};

// About 1,000,000 files: 14,000 homes of 50, 150 repositories and 150 worktrees of 1,000.
const MILLION = { homes: 14000, kilo: 150, worktrees: 150, cline: 0, reps: 1 };

const FLAGS = {
  '--homes': 'homes',
  '--files-per-home': 'filesPerHome',
  '--kilo': 'kilo',
  '--kilo-files': 'kiloFiles',
  '--worktrees': 'worktrees',
  '--worktree-files': 'worktreeFiles',
  '--cline': 'cline',
  '--cline-files': 'clineFiles',
  '--leak-snapshots': 'leakSnapshots',
  '--leak-sessions': 'leakSessions',
  '--reps': 'reps',
  '--delete-fraction': 'deleteFraction',
  '--dir': 'dir',
  '--out': 'out',
  '--previous': 'previous',
};

export const USAGE = `usage: npm run bench -- [--homes N] [--files-per-home N] [--kilo N] [--kilo-files N]
                      [--worktrees N] [--worktree-files N] [--cline N] [--cline-files N]
                      [--leak-snapshots N] [--leak-sessions N]
                      [--reps N] [--dir DIR] [--keep]
                      [--delete-fraction F] [--out FILE] [--million]
                      [--startup] [--previous CLI]
  --leak-snapshots N   opencode repositories with git garbage added for the leaks row (default 100)
  --leak-sessions N    ended Claude Code sessions' task output added for it (default 1000)
  --delete-fraction F  the deleting passes run on a fleet of this share of the sizes (default 0.25):
                       every repetition deletes the dead half and copies it back
  --million            about 1,000,000 files, one report-only pass: peak RSS, handles and children
  --startup            the start-up rows alone, without a fleet
  --previous CLI       another build's dist/cli.js (a checkout of the previous commit, built): the
                       start-up rows measure it beside this build`;

export function parseArgs(argv) {
  const options = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') return null;
    if (flag === '--keep') options.keep = true;
    else if (flag === '--million') Object.assign(options, MILLION, { million: true });
    else if (flag === '--startup') options.startup = true;
    else if (FLAGS[flag]) {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${flag} needs a value`);
      const key = FLAGS[flag];
      if (key === 'dir' || key === 'out' || key === 'previous') options[key] = value;
      else if (key === 'deleteFraction') options[key] = fraction(flag, value);
      else options[key] = positiveInteger(flag, value);
    } else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return options;
}

function positiveInteger(flag, value) {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`${flag} must be a whole number, not ${value}`);
  return number;
}

function fraction(flag, value) {
  const number = Number(value);
  if (!(number > 0 && number <= 1)) throw new Error(`${flag} must be a number above 0 and at most 1, not ${value}`);
  return number;
}

/** The sizes of the smaller fleet the deleting passes run on. */
export function scaled(options, share) {
  const part = (count) => (count === 0 ? 0 : Math.max(2, Math.round(count * share)));
  return {
    ...options,
    homes: part(options.homes),
    kilo: part(options.kilo),
    worktrees: part(options.worktrees),
    cline: part(options.cline),
  };
}
