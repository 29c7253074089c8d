import { COMMANDS, type CommandName } from './args.js';
import type { OptionSpec } from './options.js';

const WIDTH = 80;
const INDENT = '  ';
const GAP = '  ';
/** Where `-c, ` stands before a long option that has a short one. */
const NO_SHORT = '    ';

/** After `indent`, which lines them up with a command's other long options. */
const helpAndVersion = (indent = '') =>
  [
    [`${indent}--help`, "this help; after a command, that command's options"],
    [`${indent}--version`, 'the version'],
  ] as const;

/** `--help`: every command, or one command's options with their defaults. */
export function helpText(command: CommandName | undefined): string {
  if (command === undefined) {
    const commands = Object.entries(COMMANDS).map(([name, { summary }]) => [name, summary] as const);
    return [
      'Usage: agent-janitor <command> [options]',
      '',
      'Commands:',
      ...table(commands),
      '',
      'Options:',
      ...table(helpAndVersion()),
      '',
      "`agent-janitor <command> --help` lists a command's options.",
      '',
    ].join('\n');
  }
  const { summary, options } = COMMANDS[command];
  const specs: [string, OptionSpec][] = Object.entries(options);
  const rows = specs.map(([name, spec]) => [usageOf(name, spec), describe(spec)] as const);
  const hasFlags = specs.some(([, spec]) => spec.kind === 'flag');
  return [
    `Usage: agent-janitor ${command} [options]`,
    '',
    summary,
    '',
    'Options:',
    ...table([...rows, ...helpAndVersion(NO_SHORT)]),
    '',
    ...(hasFlags ? ['A flag also takes --NAME=true, --NAME=false and --no-NAME.'] : []),
    'A value that starts with - goes as --NAME=VALUE.',
    '',
  ].join('\n');
}

/** `-c, --config FILE`; a long option is indented as if it had a short one, so that the long ones line up. */
function usageOf(name: string, spec: OptionSpec): string {
  const short = spec.kind === 'string' && spec.short ? `-${spec.short}, ` : NO_SHORT;
  const aliases = spec.kind === 'flag' ? (spec.aliases ?? []).map((alias) => `, --${alias}`).join('') : '';
  const value = spec.kind === 'flag' ? '' : ` ${spec.value}`;
  return `${short}--${name}${aliases}${value}`;
}

function describe(spec: OptionSpec): string {
  if (spec.kind !== 'choice') return spec.describe;
  return `${spec.describe} (${spec.choices.join(', ')}; default: ${spec.default})`;
}

/** Two columns, the second wrapped at WIDTH under itself. The text is ASCII: a character is a column. */
function table(rows: readonly (readonly [string, string])[]): string[] {
  const left = Math.max(...rows.map(([name]) => name.length));
  const room = WIDTH - INDENT.length - left - GAP.length;
  const hanging = ' '.repeat(INDENT.length + left + GAP.length);
  return rows.flatMap(([name, text]) =>
    wrap(text, room).map((line, index) =>
      index === 0 ? `${INDENT}${name.padEnd(left)}${GAP}${line}` : `${hanging}${line}`,
    ),
  );
}

function wrap(text: string, room: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}
