import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { identityOf } from '../../safety/identity/recorded.js';
import { sameIdentity } from '../../safety/identity/resolve.js';
import { locate } from '../../safety/owners/locations.js';
import { basisOf } from '../../safety/owners/location-basis.js';
import type { OwnerJudgement } from '../../model/types.js';
import { claudeCodeConfig } from './config.js';
import type { ClaudeEvidence, RunningClaude } from './judge.js';
import { judgeRetention, yardstickDays, type RetentionEntry } from './retention-judge.js';
import { listRetention, type RetentionListing } from './retention-scan.js';
import { retentionPeriod, type SettingsFolder, type SettingsSource } from './settings.js';

const DAY_MS = 86_400_000;
/** Where Claude Code 2.1.332 reads its managed settings on Linux (its binary's `pr()`); other places unverified. */
const MANAGED_SETTINGS_DIR = '/etc/claude-code';

/** What the retention rule saw of each config folder that is reported only: its transcripts and subagents. */
export interface ConversationData {
  transcripts: RetentionListing['transcripts'];
  subagents: string[];
}

/**
 * Claude Code's own retention applied where Claude Code did not apply it (SYSTEMS.md 10.3, kind
 * `owner-retention`), in every config folder of one uid whose registry the pass read: an item for
 * each entry past the period (README.md), the period the largest `cleanupPeriodDays` of every
 * settings source. Answers the items, and what each folder holds of conversation data, which is
 * only reported.
 */
export async function retentionItems(
  evidence: ClaudeEvidence,
  ctx: GatherContext,
): Promise<{ candidates: Candidate[]; conversations: Map<string, ConversationData> }> {
  const period = await retentionPeriod(...settingsSources(evidence, ctx));
  const cutoffMs = ctx.now.getTime() - yardstickDays(period) * DAY_MS;
  const candidates: Candidate[] = [];
  const conversations = new Map<string, ConversationData>();
  for (const { dir, basis } of evidence.configDirs) {
    const located = locate(dir, basis);
    // A config folder that cannot be reached is a registry problem already: every item of the uid refuses.
    if (located.state !== 'found') continue;
    const listing = listRetention(dir, cutoffMs);
    conversations.set(path.resolve(dir), { transcripts: listing.transcripts, subagents: listing.subagents });
    const item = (at: string, judgement: OwnerJudgement, removal?: Candidate['removal']): Candidate => ({
      provider: 'claude-code',
      kind: 'owner-retention',
      path: at,
      root: dir,
      homeOwner: located.owner,
      judgement,
      ...(removal ? { removal } : {}),
    });
    for (const entry of listing.entries) {
      const judgement = judgeRetention(entry, {
        period,
        nowMs: ctx.now.getTime(),
        config: dir,
        sameConfig: (running) => sameConfig(running, dir),
        evidence,
      });
      if (judgement) candidates.push(item(entry.path, judgement, removalOf(entry, judgement)));
    }
    for (const leftover of listing.quarantines)
      candidates.push({
        ...item(leftover, {
          decision: 'delete',
          reason: 'quarantine-leftover',
          detail: `${path.basename(leftover)} is a quarantine an earlier pass proved dead by Claude Code's own retention and did not finish deleting`,
        }),
        kind: 'quarantine',
      });
    for (const linked of listing.linkedFolders)
      candidates.push(
        item(linked.path, {
          decision: 'refused',
          reason: 'symlink-in-path',
          detail: `${linked.path} is a link: Claude Code's own retention is applied here only to entries reached without one, so nothing through it is read or touched`,
        }),
      );
    for (const problem of listing.problems)
      candidates.push(
        item(problem.path, {
          decision: 'refused',
          reason: 'unreadable',
          detail: `${problem.path} cannot be listed, so what Claude Code's own retention would remove in it is not known: ${problem.why}`,
        }),
      );
  }
  return { candidates, conversations };
}

/** A folder goes as a tree; a file (and anything else, which the safety engine then refuses) as a single file. */
function removalOf(entry: RetentionEntry, judgement: OwnerJudgement): Candidate['removal'] | undefined {
  if (judgement.decision !== 'delete') return undefined;
  return entry.type === 'folder' ? { type: 'tree' } : { type: 'file' };
}

/**
 * Every settings file Claude Code may take its period from: the user settings of each config
 * folder (`settings.json`, and `cowork_settings.json`, which the 2.1.332 binary reads instead where
 * cowork plugins are on), the managed settings (`/etc/claude-code/managed-settings.json` and the
 * drop-in folder `managed-settings.d/` beside it, as the 2.1.332 binary names them; the folder is
 * configurable), and the project settings (`<project>/.claude/settings.json` and
 * `settings.local.json`) of every project a live session or a running Claude Code works in.
 */
function settingsSources(evidence: ClaudeEvidence, ctx: GatherContext): [SettingsSource[], SettingsFolder[]] {
  const sources: SettingsSource[] = [];
  for (const { dir, basis } of evidence.configDirs)
    for (const name of ['settings.json', 'cowork_settings.json']) sources.push({ file: path.join(dir, name), basis });
  const managed = claudeCodeConfig(ctx.config).managedSettingsDir ?? MANAGED_SETTINGS_DIR;
  sources.push({ file: path.join(managed, 'managed-settings.json'), basis: { outside: {} } });
  const projects = new Set<string>([
    ...evidence.records.filter((record) => record.life.state !== 'dead').map((record) => record.cwd),
    ...evidence.running.map((running) => running.cwd),
  ]);
  for (const project of [...projects].filter((each) => path.isAbsolute(each)).sort())
    for (const name of ['settings.json', 'settings.local.json'])
      sources.push({ file: path.join(project, '.claude', name), basis: basisOf(project, ctx.homes) });
  return [sources, [{ folder: path.join(managed, 'managed-settings.d'), basis: { outside: {} } }]];
}

/**
 * Whether a running Claude Code works with this config folder: the folder its `CLAUDE_CONFIG_DIR`
 * names, by identity; one that names none uses `~/.claude` of its own home, which cannot be told
 * apart from any `.claude` folder of the uid's; one whose environment cannot be read may use any.
 */
function sameConfig(running: RunningClaude, config: string): boolean | null {
  const { config: used } = running;
  if (used.state === 'unknown') return null;
  if (used.state === 'default') return path.basename(config) === '.claude' ? null : false;
  if (path.resolve(used.dir) === path.resolve(config)) return true;
  const [a, b] = [identityOf(used.dir), identityOf(config)];
  if (a === null || b === null) return null;
  return sameIdentity(a, b);
}
