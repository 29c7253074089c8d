import { describe, expect, it } from 'vitest';
import { removalPaths, sourceFiles, type RemovalPath } from './removers.js';

/**
 * Rule 21: every deletion passes one place, the executor, which takes the last proof before it.
 * No provider (nor anything else) removes or renames by another path: the functions that remove or
 * rename (Node's, and the project's remover, quarantine rename and `git worktree remove` step) are
 * imported only by the executor's own modules, and git's deleting commands are named only there,
 * but for the uses listed with their reason. So with the one write into an owner's SQLite database
 * (rule 10): `wal_checkpoint` is named only in the checkpoint the executor runs, and no file of
 * src/ changes a database's journal mode or runs a VACUUM but the demos'. Every import and literal
 * is read with TypeScript's own parser.
 */
interface Allowed {
  /** A file of src/, or a folder of them (ending in `/`). */
  file: string;
  /** What it may do, as removalPaths says it (`imports removeTree from safety/removal/remove.ts`). */
  what: readonly string[];
  why: string;
}

const EXECUTOR: readonly Allowed[] = [
  {
    file: 'pass/executor.ts',
    what: [
      'imports moveToQuarantine from safety/removal/quarantine.ts',
      'imports removeTree from safety/removal/remove.ts',
      'imports renameSync from safety/fs/entries.ts',
      'imports removeWorktreeWithGit from git/worktree-remove.ts',
      'imports unlinkProvenFile from safety/removal/unlink-file.ts',
      'imports checkpointWal from safety/wal/checkpoint.ts',
    ],
    why: 'the executor: quarantine rename, last proof, removal, and putting a folder back when the proof fails',
  },
  {
    file: 'safety/wal/checkpoint.ts',
    what: ['runs wal_checkpoint'],
    why: "the one write into an owner's SQLite database (rule 10): `PRAGMA wal_checkpoint(TRUNCATE)`, as the owner, run by the executor right after the log's last proof",
  },
  {
    file: 'safety/removal/unlink-file.ts',
    what: ['imports unlinkIfPresentSync from safety/fs/entries.ts'],
    why: "the single-file removal of one of git's temporary files, run by the executor right after its last proof",
  },
  {
    file: 'safety/removal/remove.ts',
    what: [
      'imports unlinkSync from safety/fs/entries.ts',
      'imports rmdirSync from safety/fs/entries.ts',
      'imports unlinkIfPresentSync from safety/fs/entries.ts',
      'imports rmdirIfPresentSync from safety/fs/entries.ts',
    ],
    why: "the remover the executor runs on a proven quarantine (and Kilo's lock on its own folder)",
  },
  {
    file: 'safety/removal/quarantine.ts',
    what: ['imports renameSync from safety/fs/entries.ts'],
    why: 'the quarantine rename the executor makes',
  },
  {
    file: 'git/worktree-remove.ts',
    what: ['runs git worktree remove', 'runs git worktree unlock'],
    why: "`git worktree remove`, run by the executor alone, right after the last proof; and before it `git worktree unlock` of a lock its tool left naming a process that has ended (rule 10's write, SYSTEMS.md 11.1), the lock put back byte for byte where the removal does not happen",
  },
];

const OTHERS: readonly Allowed[] = [
  {
    file: 'safety/locks/run-lock.ts',
    what: ['imports renameSync from safety/fs/entries.ts', 'imports truncateRegularFileSync from safety/fs/write.ts'],
    why: "repairs the pass's own run lock in its report directory",
  },
  {
    file: 'outputs/report-files.ts',
    what: ['imports writeFileAtomic from safety/fs/write.ts'],
    why: 'replaces the report files, in the report directory, atomically',
  },
  {
    file: 'outputs/metrics/textfile.ts',
    what: ['imports writeFileAtomic from safety/fs/write.ts'],
    why: 'replaces the metrics textfile atomically',
  },
  {
    file: 'providers/kilo/lock.ts',
    what: ['imports removeTree from safety/removal/remove.ts'],
    why: "Kilo's lock protocol: it removes the lock folder (and breaker) it made, never an item",
  },
  {
    file: 'providers/kilo/removal.ts',
    what: ['runs git update-ref -d'],
    why: 'the pin of a deleted Kilo checkpoint repository, the one ref ever deleted (rule 10), after the executor removed it',
  },
  {
    file: 'providers/kilo/demo.ts',
    what: [
      'imports removeTree from safety/removal/remove.ts',
      'runs git worktree remove',
      'runs git branch -D',
      'changes journal_mode',
    ],
    why: 'builds the demo sandbox in a folder of its own; never runs in a pass',
  },
  {
    file: 'providers/cline/demo.ts',
    what: ['imports removeTree from safety/removal/remove.ts'],
    why: 'builds the demo sandbox in a folder of its own; never runs in a pass',
  },
  {
    file: 'providers/owl/demo.ts',
    what: ['imports removeTree from safety/removal/remove.ts', 'changes journal_mode'],
    why: 'builds the demo sandbox in a folder of its own; never runs in a pass',
  },
];

const ALLOWED = [...EXECUTOR, ...OTHERS];

const isAllowed = (found: RemovalPath, allowed: readonly Allowed[]) =>
  found.file.startsWith('safety/fs/') ||
  allowed.some((each) => each.file === found.file && each.what.includes(found.what));

const shown = (found: RemovalPath) => `${found.file} ${found.what}`;

describe('only the executor removes or renames', () => {
  const all = sourceFiles().flatMap((file) => removalPaths(file));

  it('no file of src/ removes or renames by another path than the executor, but the uses listed with their reason', () => {
    expect(all.filter((found) => !isAllowed(found, ALLOWED)).map(shown)).toEqual([]);
  });

  it('every use listed is still there (the list stays exact)', () => {
    const unused = ALLOWED.flatMap((allowed) =>
      allowed.what
        .filter((what) => !all.some((found) => found.file === allowed.file && found.what === what))
        .map((what) => `${allowed.file} ${what}`),
    );
    expect(unused).toEqual([]);
  });

  it('sees a provider that removes, renames or runs a deleting git command itself, however it is written', () => {
    const provider = 'providers/example/provider.ts';
    const caught = (text: string) => removalPaths(provider, text).filter((found) => !isAllowed(found, ALLOWED));
    for (const text of [
      "import { removeTree } from '../../safety/removal/remove.js'; removeTree('/x');",
      "import { removeTree as wipe } from '../../safety/removal/remove.js'; wipe('/x');",
      "import { moveToQuarantine } from '../../safety/removal/quarantine.js';",
      "import { renameSync } from '../../safety/fs/entries.js';",
      "import { rmSync } from 'node:fs';",
      "import { rm } from 'fs/promises';",
      "import * as fs from 'node:fs'; fs.rmSync('/x');",
      "import fs from 'node:fs';",
      "const fs = process.getBuiltinModule('node:fs');",
      "await git(['worktree', 'remove', worktree], { cwd: repo });",
      "await runGit(['-C', repo, 'worktree', 'prune']);",
      "await runGit(['worktree', 'unlock', worktree], { cwd: repo });",
      "await runGit(['-C', repo, 'update-ref', '-d', ref]);",
      "await git(['branch', '-D', name]);",
      "spawn('rm', ['-rf', target]);",
      "execFileSync('mv', [a, b]);",
      "import { removeWorktreeWithGit } from '../../git/worktree-remove.js';",
      "await runGit(['gc', '--prune=now'], { cwd: repo });",
      "await runGit(['-C', repo, 'prune']);",
      "await runGit(['repack', '-a', '-d']);",
      "await git(['clean', '-fdx']);",
      "await runGit(['reflog', 'expire', '--all']);",
      "import { unlinkProvenFile } from '../../safety/removal/unlink-file.js';",
      "import { checkpointWal } from '../../safety/wal/checkpoint.js';",
      "db.pragma('wal_checkpoint(TRUNCATE)');",
      "db.exec('PRAGMA WAL_CHECKPOINT(PASSIVE)');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal, written as source text
      'db.pragma(`wal_checkpoint(${mode})`);',
      "const sql = 'PRAGMA main.' + 'wal_checkpoint';",
      "db.pragma('journal_mode = DELETE');",
      "db.exec('VACUUM');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal, written as source text
      'db.exec(`vacuum into ${file}`);',
    ])
      expect(caught(text).length, text).toBeGreaterThan(0);
    for (const text of [
      "import { lstatOrNull } from '../../safety/fs/stat.js';",
      "import type { Stats } from 'node:fs';",
      "import { constants } from 'node:fs';",
      "await git(['worktree', 'list', '--porcelain']);",
      "await runGit(['status', '--porcelain=v2']);",
      "db.pragma('journal_mode');",
      "import { examineWalPair } from '../../safety/wal/pair.js';",
    ])
      expect(caught(text), text).toEqual([]);
  });

  it('the executor, and the steps only it calls, are the ones that may', () => {
    const executorSide = new Set(EXECUTOR.map((allowed) => allowed.file));
    const users = (name: string) =>
      [...new Set(all.filter((found) => found.what.startsWith(`imports ${name} `)).map((found) => found.file))].sort();
    expect(users('moveToQuarantine')).toEqual(['pass/executor.ts']);
    expect(users('removeWorktreeWithGit')).toEqual(['pass/executor.ts']);
    expect(users('unlinkProvenFile')).toEqual(['pass/executor.ts']);
    expect(users('checkpointWal')).toEqual(['pass/executor.ts']);
    expect(all.filter((found) => found.what === 'runs wal_checkpoint').map((found) => found.file)).toEqual([
      'safety/wal/checkpoint.ts',
    ]);
    expect(users('removeTree').filter((file) => !file.endsWith('/demo.ts') && !executorSide.has(file))).toEqual([
      'providers/kilo/lock.ts',
    ]);
  });
});
