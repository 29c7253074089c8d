import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './removers.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * Rules 25 and 27: a process's paths and environment are read once, by the safety engine's scan of
 * /proc (src/safety/processes/), which resolves them by identity through the process's own root
 * and working directory. A provider, an engine or the pass that read /proc itself would compare
 * another program's spelling of a path with its own, as text: so nothing outside src/safety/ names
 * /proc or one of a process's files there, but for the uses listed with their reason.
 */
const PROCESS_FILES = new Set(['cmdline', 'environ', 'mountinfo']);

const ALLOWED: ReadonlyArray<{ file: string; literal: RegExp; why: string }> = [
  {
    file: 'git/start.ts',
    literal: /^\/proc\/self\/fd\/$/,
    why: "a path that is not UTF-8 is handed to git as one of git's own descriptors (its /proc/self, not another process's)",
  },
];

/** Every string a file of src/ spells out that names /proc, or a process's file in it. */
function procLiterals(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const literal =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)
          ? node.text
          : null;
    if (literal !== null && (/^\/proc(\/|$)/.test(literal) || PROCESS_FILES.has(literal))) found.push(literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the one look at /proc', () => {
  it('only the safety engine names /proc or a process file in it; providers read ctx.processes', () => {
    const outside = sourceFiles().filter((file) => !file.startsWith('safety/'));
    const found = outside.flatMap((file) =>
      procLiterals(file)
        .filter((literal) => !ALLOWED.some((allowed) => allowed.file === file && allowed.literal.test(literal)))
        .map((literal) => `${file} names ${JSON.stringify(literal)}`),
    );
    expect(found).toEqual([]);
  });

  it('the check sees a provider that reads a process environment itself', () => {
    const planted = "readKernelFileSync(path.join('/proc', String(pid), 'environ'))";
    const source = ts.createSourceFile('x.ts', planted, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const literals: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node)) literals.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(literals.filter((literal) => /^\/proc(\/|$)/.test(literal) || PROCESS_FILES.has(literal))).toEqual([
      '/proc',
      'environ',
    ]);
  });
});
