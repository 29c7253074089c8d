/**
 * A reader for the subset of the Dockerfile and .dockerignore syntax the project's image uses, so
 * that tests can check what the Dockerfile states.
 */
import path from 'node:path';

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  globalArgs: Record<string, string>;
  stages: Stage[];
}

/** Joins continued lines, drops comments, splits into stages; `${ARG}` in FROM is expanded. */
export function parseDockerfile(text: string): Dockerfile {
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const instruction of logicalLines(text)) {
    const { keyword, args } = instruction;
    if (keyword === 'ARG' && stages.length === 0) {
      const [name, value = ''] = splitOnce(args, '=');
      globalArgs[name.trim()] = value.trim();
      continue;
    }
    if (keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args.trim());
      if (!match) throw new Error(`Dockerfile line ${instruction.line}: cannot read FROM ${args}`);
      const from = (match[1] as string).replace(
        /\$\{(\w+)\}|\$(\w+)/g,
        (_, a: string | undefined, b: string | undefined) => {
          const name = (a ?? b) as string;
          const value = globalArgs[name];
          if (value === undefined) throw new Error(`Dockerfile line ${instruction.line}: ARG ${name} has no default`);
          return value;
        },
      );
      stages.push({ name: match[2] ?? String(stages.length), from, instructions: [] });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (!stage) throw new Error(`Dockerfile line ${instruction.line}: ${keyword} before the first FROM`);
    stage.instructions.push(instruction);
  }
  return { globalArgs, stages };
}

function logicalLines(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  let startLine = 0;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    // Comment lines are dropped, even inside a continued instruction (as BuildKit does).
    if (trimmed.startsWith('#')) return;
    if (pending === '' && trimmed === '') return;
    if (pending === '') startLine = index + 1;
    if (trimmed.endsWith('\\')) {
      pending += `${trimmed.slice(0, -1)} `;
      return;
    }
    pending += trimmed;
    const [keyword, args = ''] = splitOnce(pending.trim(), ' ');
    out.push({ keyword: keyword.toUpperCase(), args: args.trim().replace(/\s+/g, ' '), line: startLine });
    pending = '';
  });
  if (pending !== '') throw new Error('Dockerfile ends inside a continued line');
  return out;
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at === -1 ? [text] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** The JSON (exec) form of ENTRYPOINT, CMD or HEALTHCHECK CMD; the shell form is refused. */
export function execForm(args: string): string[] {
  const value: unknown = JSON.parse(args);
  if (!Array.isArray(value) || !value.every((part) => typeof part === 'string')) {
    throw new Error(`expected the exec form ["cmd", "arg"], got ${args}`);
  }
  return value as string[];
}

export interface CopyStep {
  from: string | null;
  sources: string[];
  dest: string;
}

export function parseCopy(args: string): CopyStep {
  const words = args.split(' ');
  let from: string | null = null;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift() as string;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    else if (!/^--(chown|chmod|link)(=|$)/.test(flag)) throw new Error(`COPY flag ${flag} is not understood here`);
  }
  if (words.length < 2) throw new Error(`COPY needs a source and a destination: ${args}`);
  const dest = words.pop() as string;
  return { from, sources: words, dest };
}

/**
 * .dockerignore: each pattern (with `*`, `?`, `**`) matches a path or any folder above it; the
 * last matching pattern decides, `!` re-including.
 */
export function dockerignoreFilter(text: string): (relativePath: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = path.posix.normalize((negated ? line.slice(1) : line).replace(/^\/+/, '')).replace(/\/+$/, '');
      return { negated, regex: patternToRegExp(pattern) };
    });
  return (relativePath) => {
    const parts = relativePath.split('/');
    let included = true;
    for (const rule of rules) {
      for (let depth = 1; depth <= parts.length; depth += 1) {
        if (rule.regex.test(parts.slice(0, depth).join('/'))) {
          included = rule.negated;
          break;
        }
      }
    }
    return included;
  };
}

function patternToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i += 1;
      if (pattern[i + 1] === '/') i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
