import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * The functions that remove or rename something on disk, by the module that exports them: Node's
 * own, and the project's wrappers and steps built on them.
 */
const REMOVERS: Readonly<Record<string, readonly string[]>> = {
  'node:fs': [
    'rename',
    'renameSync',
    'unlink',
    'unlinkSync',
    'rmdir',
    'rmdirSync',
    'rm',
    'rmSync',
    'truncate',
    'truncateSync',
    'ftruncate',
    'ftruncateSync',
  ],
  'node:fs/promises': ['rename', 'unlink', 'rmdir', 'rm', 'truncate'],
  'safety/fs/entries.ts': ['renameSync', 'unlinkSync', 'rmdirSync', 'unlinkIfPresentSync', 'rmdirIfPresentSync'],
  'safety/fs/write.ts': ['truncateRegularFileSync', 'writeFileAtomic'],
  'safety/removal/remove.ts': ['removeTree'],
  'safety/removal/quarantine.ts': ['moveToQuarantine'],
  'git/worktree-remove.ts': ['removeWorktreeWithGit'],
  'safety/removal/unlink-file.ts': ['unlinkProvenFile'],
  'safety/wal/checkpoint.ts': ['checkpointWal'],
};

/**
 * SQL that writes an owner's SQLite database without touching a row: a checkpoint, a change of
 * journal mode, a VACUUM (in a string or template literal, any case).
 */
const SQLITE_WRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/wal_checkpoint/i, 'runs wal_checkpoint'],
  [/journal_mode\s*=/i, 'changes journal_mode'],
  [/\bvacuum\b/i, 'runs VACUUM'],
];

/**
 * git commands that delete: a worktree, an admin entry, a worktree's lock, a ref, a branch, a tag
 * (as consecutive literals of one list).
 */
const GIT_DELETES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['worktree', ['remove', 'prune', 'move', 'unlock']],
  ['update-ref', ['-d', '--delete']],
  ['branch', ['-d', '-D', '--delete']],
  ['tag', ['-d', '--delete']],
];

/**
 * git commands that delete objects or files on their own (a repository's garbage, its reflog, its
 * untracked files): never run in a live repository, whose checkpoint trees are unreachable by design.
 */
const GIT_WHOLE_DELETES = new Set(['gc', 'prune', 'repack', 'clean']);

/** Programs that remove or rename, started as a child. */
const REMOVING_PROGRAMS = new Set(['rm', 'rmdir', 'unlink', 'mv']);
const CHILD_STARTERS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync']);

/** One way a file removes or renames something, as `what` (`imports removeTree`, `runs git worktree remove`). */
export interface RemovalPath {
  file: string;
  what: string;
}

/** Every .ts file under src/, relative to it. */
export function sourceFiles(dir = SRC): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.ts')) found.push(path.relative(SRC, full));
  }
  return found.sort();
}

/** The ways one file of src/ (relative to it) removes or renames, read with TypeScript's parser. */
export function removalPaths(file: string, text = readFileSync(path.join(SRC, file), 'utf8')): RemovalPath[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: RemovalPath[] = [];
  const add = (what: string) => found.push({ file, what });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = resolve(file, node.moduleSpecifier.text);
      const names = REMOVERS[from];
      const clause = node.importClause;
      if (names && clause && !clause.isTypeOnly) {
        const bindings = clause.namedBindings;
        if (clause.name || (bindings && ts.isNamespaceImport(bindings))) add(`imports all of ${from}`);
        if (bindings && ts.isNamedImports(bindings))
          for (const element of bindings.elements) {
            const name = (element.propertyName ?? element.name).text;
            if (!element.isTypeOnly && names.includes(name)) add(`imports ${name} from ${from}`);
          }
      }
    } else if (ts.isArrayLiteralExpression(node)) {
      const words = node.elements.map((element) => (ts.isStringLiteral(element) ? element.text : null));
      for (let k = 0; k + 1 < words.length; k += 1)
        for (const [command, deleting] of GIT_DELETES)
          if (words[k] === command && deleting.includes(words[k + 1] as string))
            add(`runs git ${command} ${words[k + 1]}`);
      words.forEach((word, k) => {
        if (word !== null && GIT_WHOLE_DELETES.has(word) && words[k - 1] !== 'worktree') add(`runs git ${word}`);
        if (word === 'reflog' && ['expire', 'delete'].includes(words[k + 1] as string))
          add(`runs git reflog ${words[k + 1]}`);
      });
    } else if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      for (const [pattern, what] of SQLITE_WRITES) if (pattern.test(node.text)) add(what);
    }
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      const first = node.arguments[0];
      if (ts.isIdentifier(callee) && CHILD_STARTERS.has(callee.text) && first && ts.isStringLiteral(first))
        if (REMOVING_PROGRAMS.has(first.text)) add(`starts ${first.text}`);
      if (ts.isIdentifier(callee) && callee.text === 'getBuiltinModule' && first && ts.isStringLiteral(first))
        if (REMOVERS[resolve(file, first.text)]) add(`loads all of ${resolve(file, first.text)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const BUILTINS: Record<string, string> = { fs: 'node:fs', 'fs/promises': 'node:fs/promises' };

function resolve(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return BUILTINS[specifier] ?? specifier;
  return path.normalize(path.join(path.dirname(from), specifier)).replace(/\.js$/, '.ts');
}
