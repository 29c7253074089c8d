import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** One import of a module: a file of src/ (relative to it, `pass/pass.ts`) or a package (`node:fs`, `yaml`). */
export interface Edge {
  from: string;
  to: string;
  /** `import type` and `export type`: gone from the JavaScript, so they run nothing. */
  typeOnly: boolean;
  /** `import()`: loaded only when the code that calls it runs. */
  dynamic?: boolean;
}

/** Every .ts file under src/, relative to it, in a stable order. */
function sourceFiles(dir = SRC): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.ts')) found.push(path.relative(SRC, full));
  }
  return found.sort();
}

/**
 * The imports of one file as TypeScript parses them: static imports, re-exports, `import()` of a
 * literal.
 */
function importsOf(file: string, text = readFileSync(path.join(SRC, file), 'utf8')): Edge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean, dynamic = false) => {
    if (specifier && ts.isStringLiteral(specifier))
      edges.push({ from: file, to: resolve(file, specifier.text), typeOnly, ...(dynamic ? { dynamic } : {}) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, isTypeOnlyImport(node));
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0
    ? bindings.elements.every((element) => element.isTypeOnly)
    : false;
}

/** `../pass/pass.js` from `outputs/x.ts` is `pass/pass.ts`; a package stays as written, `fs` as `node:fs`. */
function resolve(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return BUILTINS.has(specifier) ? `node:${specifier}` : specifier;
  const target = path.normalize(path.join(path.dirname(from), specifier));
  return target.replace(/\.js$/, '.ts');
}

const BUILTINS = new Set(['fs', 'fs/promises', 'child_process', 'path', 'os', 'worker_threads', 'http', 'net']);

export interface ImportGraph {
  files: string[];
  edges: Edge[];
  /** What a file imports, runtime imports only unless `withTypes`. */
  direct(file: string, withTypes?: boolean): string[];
  /** Everything a file loads, itself excluded, following runtime imports through src/ (with `static`, not `import()`). */
  closure(file: string, options?: { static?: boolean }): Set<string>;
}

export function importGraph(
  files = sourceFiles(),
  read: (file: string) => Edge[] = (file) => importsOf(file),
): ImportGraph {
  const edges = files.flatMap(read);
  const byFile = new Map<string, Edge[]>();
  for (const edge of edges) byFile.set(edge.from, [...(byFile.get(edge.from) ?? []), edge]);
  const direct = (file: string, withTypes = false) =>
    (byFile.get(file) ?? []).filter((edge) => withTypes || !edge.typeOnly).map((edge) => edge.to);
  const closure = (file: string, options: { static?: boolean } = {}) => {
    const seen = new Set<string>();
    const queue = [file];
    const follow = (from: string) =>
      (byFile.get(from) ?? [])
        .filter((edge) => !edge.typeOnly && !(options.static && edge.dynamic))
        .map((edge) => edge.to);
    while (queue.length > 0) {
      for (const next of follow(queue.pop() as string)) {
        if (seen.has(next)) continue;
        seen.add(next);
        if (next.endsWith('.ts')) queue.push(next);
      }
    }
    seen.delete(file);
    return seen;
  };
  return { files, edges, direct, closure };
}

/** The top-level folder of src/ a file is in (`.` for src/cli.ts); null for a package. */
export function layerOf(file: string): string | null {
  if (!file.endsWith('.ts')) return null;
  const parts = file.split(path.sep);
  return parts.length === 1 ? '.' : (parts[0] as string);
}

/** A path through the import graph from `from` to a file `matches` accepts, for the failure message. */
export function chainTo(graph: ImportGraph, from: string, matches: (file: string) => boolean): string[] | null {
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const next of graph.direct(file)) {
      if (seen.has(next)) continue;
      seen.add(next);
      previous.set(next, file);
      if (matches(next)) {
        const chain = [next];
        while (chain[0] !== from) chain.unshift(previous.get(chain[0] as string) as string);
        return chain;
      }
      if (next.endsWith('.ts')) queue.push(next);
    }
  }
  return null;
}
