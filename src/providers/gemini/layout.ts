import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import { basisOf, type LocationBasis } from '../../safety/owners/location-basis.js';
import { geminiConfig } from './config.js';

export type GeminiTool = 'gemini' | 'qwen';

/** What tells each tool's folder and shadow repositories (read from the real CLIs: Gemini CLI 0.61, Qwen Code 0.15). */
export const TOOLS: Record<GeminiTool, { label: string; folder: string; userName: string; userEmail: string }> = {
  gemini: { label: 'Gemini CLI', folder: '.gemini', userName: 'Gemini CLI', userEmail: 'gemini-cli@google.com' },
  qwen: { label: 'Qwen Code', folder: '.qwen', userName: 'Qwen Code', userEmail: 'qwen-code@qwen.ai' },
};

/** One tool's folder (`~/.gemini`, `~/.qwen`). */
export interface GeminiLocation {
  /** The tool, or null for a folder the config names outright that is neither `.gemini` nor `.qwen`. */
  tool: GeminiTool | null;
  dir: string;
  /** Whose it is: the home it is in, else outside every home (rule 20). */
  basis: LocationBasis;
}

export const historyDir = (dir: string): string => path.join(dir, 'history');
export const tmpDir = (dir: string): string => path.join(dir, 'tmp');
export const registryFile = (dir: string): string => path.join(dir, 'projects.json');

/** The tool's name as people call it; a folder of unknown tool may be either's. */
export const toolLabel = (tool: GeminiTool | null): string => (tool ? TOOLS[tool].label : 'Gemini CLI or Qwen Code');

/** Every tool folder of the pass: the config's `dir` when it names them, else each home's, for each tool. */
export function geminiLocations(ctx: Pick<GatherContext, 'config' | 'homes'>): GeminiLocation[] {
  const section = geminiConfig(ctx.config);
  if (section.dir)
    return section.dir.map((raw) => {
      const dir = path.resolve(raw);
      const tool = (Object.keys(TOOLS) as GeminiTool[]).find((each) => TOOLS[each].folder === path.basename(dir));
      return { tool: tool ?? null, dir, basis: basisOf(dir, ctx.homes) };
    });
  return ctx.homes.flatMap((home) =>
    section.tools.map((tool) => ({
      tool,
      dir: path.join(path.resolve(home), TOOLS[tool].folder),
      basis: { home: path.resolve(home) },
    })),
  );
}

/** Gemini CLI marks every process it starts (its shell commands) with `GEMINI_CLI=1`. */
export const GEMINI_MARK_VARIABLE = 'GEMINI_CLI';

/**
 * A running Gemini CLI: its executable or `argv[0]` is `gemini`, or the script Node runs is
 * (`/usr/local/bin/gemini`, npm's `.bin/gemini`, the package's own `bundle/gemini.js`, also when it
 * relaunches itself with more memory), or it carries `GEMINI_CLI=1` (what it starts). Taking another
 * program for it only keeps more.
 */
export function isGeminiProcess(process: {
  exe: string | null;
  argv: readonly string[] | null;
  vars: Readonly<Record<string, string>> | null;
}): boolean {
  if (process.vars?.[GEMINI_MARK_VARIABLE] === '1') return true;
  const [first, ...rest] = process.argv ?? [];
  if ([process.exe, first].some((each) => each && path.basename(each) === 'gemini')) return true;
  const script = rest.find((arg) => !arg.startsWith('-'));
  return script !== undefined && (path.basename(script) === 'gemini' || GEMINI_PACKAGE.test(script));
}

const GEMINI_PACKAGE = /[/\\]@google[/\\]gemini-cli[/\\]/;
