import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { isInside } from '../../safety/inside.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import { formatBytes } from '../../util/format.js';
import type { ClaudeEvidence } from './judge.js';
import type { ClaudeUser } from './locations.js';
import type { ConversationData } from './retention.js';

const STALE_NAMED = 3;

/**
 * Claude Code's own state in each home, reported and never deleted: the size of its transcripts
 * (`projects/<slug>/*.jsonl`), its subagents' transcripts (`projects/<slug>/<sid>/subagents/`),
 * `file-history/`, `debug/`, `shell-snapshots/` and MCP logs
 * (`${XDG_CACHE_HOME:-~/.cache}/claude-cli-nodejs/`), and the registry records whose process is
 * gone. One `kept` item per home with a `~/.claude` (or `$CLAUDE_CONFIG_DIR` for the current
 * user's), without a path: nothing of it is the pass's to judge.
 */
export function stateReports(
  user: ClaudeUser,
  evidence: ClaudeEvidence,
  conversations: ReadonlyMap<string, ConversationData>,
  ctx: GatherContext,
): Candidate[] {
  const reports: Candidate[] = [];
  for (const home of user.homes) {
    const own = Boolean(ctx.env.HOME) && path.resolve(ctx.env.HOME as string) === home;
    const named = ctx.env.CLAUDE_CONFIG_DIR;
    const config = own && named && path.isAbsolute(named) ? path.resolve(named) : path.join(home, '.claude');
    const basis: LocationBasis = { home };
    if (locate(config, basis).state !== 'found') continue;
    const cache =
      own && ctx.env.XDG_CACHE_HOME && path.isAbsolute(ctx.env.XDG_CACHE_HOME)
        ? ctx.env.XDG_CACHE_HOME
        : path.join(home, '.cache');
    const seen = conversations.get(path.resolve(config));
    const projects = path.join(config, 'projects');
    // The transcripts themselves (`projects/<slug>/*.jsonl`) where the retention rule listed them, else all of projects/.
    const transcripts = seen
      ? [`transcripts ${formatBytes(seen.transcripts.bytes)} (${seen.transcripts.files} in ${projects})`]
      : sized('transcripts', projects, basis, ctx);
    const subagentBytes = (seen?.subagents ?? []).reduce((sum, folder) => sum + (sizeOf(folder, basis, ctx) ?? 0), 0);
    const sizes = [
      ...transcripts,
      ...(subagentBytes > 0 ? [`subagent transcripts ${formatBytes(subagentBytes)} (${projects}/*/*/subagents)`] : []),
      ...sized('file history', path.join(config, 'file-history'), basis, ctx),
      ...sized('debug logs', path.join(config, 'debug'), basis, ctx),
      ...sized('shell snapshots', path.join(config, 'shell-snapshots'), basis, ctx),
      ...sized('MCP logs', path.join(cache, 'claude-cli-nodejs'), basis, ctx),
    ];
    const stale = evidence.records.filter((record) => record.life.state === 'dead' && isInside(config, record.file));
    const staleText =
      stale.length === 0
        ? ''
        : `; ${stale.length} stale registry record${stale.length === 1 ? '' : 's'} of sessions that did not end cleanly: ${stale
            .slice(0, STALE_NAMED)
            .map((record) => `${path.basename(record.file)} (${record.life.state === 'dead' ? record.life.why : ''})`)
            .join(', ')}${stale.length > STALE_NAMED ? ` and ${stale.length - STALE_NAMED} more` : ''}`;
    reports.push({
      provider: 'claude-code',
      kind: 'task-output',
      path: null,
      root: null,
      judgement: {
        decision: 'kept',
        reason: 'claude-state-reported',
        detail: `Claude Code's own state in ${config}, reported only and never deleted: ${sizes.length > 0 ? sizes.join(', ') : 'no transcripts, logs or history'}${staleText}`,
      },
    });
  }
  return reports;
}

/** `<what> <size> (<folder>)`, or nothing where the folder is not there or cannot be walked. */
function sized(what: string, folder: string, basis: LocationBasis, ctx: GatherContext): string[] {
  const bytes = sizeOf(folder, basis, ctx);
  return bytes === null ? [] : [`${what} ${formatBytes(bytes)} (${folder})`];
}

/** The size of a folder of the home's owner's (rule 20), or null where it is not there or cannot be walked. */
function sizeOf(folder: string, basis: LocationBasis, ctx: GatherContext): number | null {
  if (locate(folder, basis).state !== 'found') return null;
  try {
    const tree = ctx.measure(folder);
    return tree.error ? null : tree.bytes;
  } catch {
    return null;
  }
}
