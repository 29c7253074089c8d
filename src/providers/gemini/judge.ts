import type { OwnerJudgement } from '../../model/types.js';
import type { GarbageRefusal } from '../../engines/git-garbage/reasons.js';
import type { ShadowConfig } from '../../engines/vscode-storage/git-config.js';
import { formatBytes } from '../../util/format.js';
import { TOOLS, toolLabel, type GeminiTool } from './layout.js';

/** What the provider read of one project's folders: `history/<name>` and `tmp/<name>`. */
export interface ProjectFacts {
  tool: GeminiTool | null;
  /** The folder name both share: a slug (`app`), or the sha256 of the project's path (older Gemini CLI, Qwen Code). */
  name: string;
  history: { path: string; bytes: number | null; garbageBytes: number } | null;
  tmp: { path: string; bytes: number | null } | null;
  /** The shadow repository's own config (`history/<name>/.gitconfig`), or why it cannot be read. */
  identity: ShadowConfig | { problem: string } | null;
  /** `history/<name>/.git` is a real folder. */
  gitdirIsFolder: boolean;
  /** The project's path, as `.project_root` records it (either folder's). */
  projectRoot: string | null;
  /** The paths `projects.json` maps to this name. */
  registered: string[];
  /** Whether the project's path exists, where one is known. */
  projectExists: 'yes' | 'no' | 'unknown' | null;
  /** Why `projects.json` cannot be read, when it cannot: everything of the folder is refused (rule 1). */
  sourceProblem?: string;
}

/**
 * A shadow repository is the tool's when its `.git` is a real folder and its own `.gitconfig`
 * gives the tool's identity (the tool runs git with that file as its global config).
 */
function isToolRepository(facts: ProjectFacts): boolean {
  const identity = facts.identity;
  if (!facts.gitdirIsFolder || identity === null || 'problem' in identity) return false;
  const tools = facts.tool ? [facts.tool] : (Object.keys(TOOLS) as GeminiTool[]);
  return tools.some(
    (tool) => identity.userName === TOOLS[tool].userName && identity.userEmail === TOOLS[tool].userEmail,
  );
}

/** Whether git's temporary files in the project's shadow repository may be judged, and why none may go now. */
export function geminiGarbageStand(
  facts: ProjectFacts,
): { recognised: false } | { recognised: true; refusal?: GarbageRefusal } {
  if (!isToolRepository(facts)) return { recognised: false };
  if (facts.sourceProblem)
    return {
      recognised: true,
      refusal: { decision: 'refused', reason: 'source-unreadable', detail: facts.sourceProblem },
    };
  return { recognised: true };
}

/**
 * The shadow repository `history/<name>`: reported with its size, never deleted. Nothing the tool
 * keeps proves a project dead (a missing project path may be an unmounted volume), and the tool
 * re-creates the repository of a project it opens again; its restore points name its commits.
 */
export function judgeHistory(facts: ProjectFacts): OwnerJudgement {
  if (facts.sourceProblem) return { decision: 'refused', reason: 'source-unreadable', detail: facts.sourceProblem };
  const whose = isToolRepository(facts)
    ? `${toolLabel(facts.tool)}'s checkpoint shadow repository`
    : `a folder in ${toolLabel(facts.tool)}'s history that is not one of its shadow repositories (${notTheTools(facts)})`;
  const tmp = facts.tmp ? `; its scratch ${facts.tmp.path} holds ${size(facts.tmp.bytes)}` : '';
  return {
    decision: 'kept',
    reason: 'project-history',
    detail: `${whose} of ${projectWords(facts)}${tmp}; reported, never deleted (only git's temporary files in it go)`,
  };
}

/** The project's scratch `tmp/<name>` (chats, checkpoints, logs, tool output): conversation data, reported. */
export function judgeScratch(facts: ProjectFacts): OwnerJudgement {
  if (facts.sourceProblem) return { decision: 'refused', reason: 'source-unreadable', detail: facts.sourceProblem };
  const history = facts.history
    ? `; its shadow repository ${facts.history.path} holds ${size(facts.history.bytes === null ? null : facts.history.bytes - facts.history.garbageBytes)}`
    : '';
  return {
    decision: 'kept',
    reason: 'project-scratch',
    detail: `${toolLabel(facts.tool)}'s scratch (chats, checkpoints, logs, tool output) of ${projectWords(facts)}${history}; conversation data, reported, never deleted`,
  };
}

/** The project, whether its path exists (no proof either way), and its entry in the registry. */
function projectWords(facts: ProjectFacts): string {
  const known = facts.projectRoot ?? facts.registered[0] ?? null;
  const where =
    known === null
      ? `an unrecorded project (the folder ${facts.name} is ${/^[0-9a-f]{64}$/.test(facts.name) ? "named by the sha256 of the project's path" : 'named by no record'})`
      : `${known}, ${existence(facts.projectExists)}`;
  const registry =
    facts.tool === 'qwen'
      ? ''
      : facts.registered.length > 0
        ? `, registered in projects.json as ${facts.name}${facts.registered.length > 1 || (facts.projectRoot !== null && facts.registered[0] !== facts.projectRoot) ? ` for ${facts.registered.join(', ')}` : ''}`
        : ', in no entry of projects.json';
  return `${where}${registry}`;
}

function existence(state: ProjectFacts['projectExists']): string {
  if (state === 'yes') return 'which exists';
  if (state === 'no') return 'which is missing (no proof it was deleted: a volume may be unmounted)';
  return 'which cannot be looked at';
}

function notTheTools(facts: ProjectFacts): string {
  const identity = facts.identity;
  if (!facts.gitdirIsFolder) return 'its .git is not a folder';
  if (identity === null) return 'it has no .gitconfig';
  if ('problem' in identity) return `its .gitconfig cannot be read: ${identity.problem}`;
  return `its identity is ${identity.userName ?? '(no user.name)'} <${identity.userEmail ?? 'no user.email'}>`;
}

const size = (bytes: number | null): string => (bytes === null ? 'an unknown size' : formatBytes(bytes));
