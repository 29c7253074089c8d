import { describe, expect, it } from 'vitest';
import type { RepoEvidence } from '../../../src/providers/kilo/evidence.js';
import { judgeRepo, SEEDING_FRESH_MS } from '../../../src/providers/kilo/judge.js';
import type { OwnerRepoFacts } from '../../../src/providers/kilo/owner-repo.js';
import { sha1 } from './fixtures.js';

const NOW = Date.parse('2026-11-30T06:00:00Z');
const R = '/home/ana/src/shop';
const W = `${R}/.kilo/worktrees/feature`;

function owner(overrides: Partial<OwnerRepoFacts> = {}): OwnerRepoFacts {
  return {
    path: R,
    state: 'ok',
    canonical: R,
    gitWorktrees: new Set([R]),
    agentManager: { files: [], worktrees: new Set() },
    pins: new Map(),
    ...overrides,
  };
}

/** The evidence of a repository proven dead; each test changes one fact. */
function dead(overrides: Partial<RepoEvidence> = {}): RepoEvidence {
  return {
    app: 'kilo',
    repo: { projectId: 'p1', gitdir: `/home/ana/.local/share/kilo/snapshot/p1/${sha1(W)}`, name: sha1(W) },
    identity: { dev: 1, ino: 2 },
    worktree: W,
    worktreeExists: 'no',
    managed: { kind: 'repo', owner: R, folder: '.kilo' },
    ownerPath: R,
    owner: owner(),
    lock: { state: 'free' },
    lockDir: '/home/ana/.local/state/kilo/locks/x.lock',
    seedingMs: null,
    unmaterialized: false,
    pin: null,
    ...overrides,
  };
}

describe('the kilo rule, as a pure function of the evidence', () => {
  it('deletes a repository whose managed worktree is gone and unlisted, naming the pin it drops', () => {
    expect(judgeRepo(dead(), NOW)).toMatchObject({ decision: 'delete', reason: 'worktree-removed' });
    const pinned = judgeRepo(
      dead({ unmaterialized: true, pin: { ref: 'refs/kilo/materialize/abc', oid: 'f'.repeat(40) } }),
      NOW,
    );
    expect(pinned.detail).toContain('refs/kilo/materialize/abc');
    expect(pinned.detail).toContain('never materialized');
  });

  it.each([
    ['source-unreadable', { sourceProblem: '/x/kilo.db: cannot be read' }],
    ['evidence-unreadable', { readProblem: 'EACCES' }],
    ['worktree-unrecorded', { worktree: null }],
    ['worktree-hash-mismatch', { worktree: `${R}/.kilo/worktrees/other` }],
    ['worktree-unreadable', { worktreeExists: 'unknown' as const }],
    ['unmanaged-worktree', { managed: null }],
    ['owner-unknown', { ownerPath: null, owner: null }],
    ['owner-unavailable', { owner: owner({ state: 'missing', problem: `${R} does not exist` }) }],
    ['owner-unavailable', { owner: owner({ state: 'not-a-repo', problem: `${R} is not a git repository` }) }],
    ['owner-unreadable', { owner: owner({ state: 'unreadable', problem: 'git failed' }) }],
    ['worktree-still-registered', { owner: owner({ gitWorktrees: new Set([R, W]) }) }],
    [
      'agent-manager-unreadable',
      {
        owner: owner({
          agentManager: { files: [`${R}/.kilo/agent-manager.json`], worktrees: new Set(), problem: 'bad json' },
        }),
      },
    ],
    [
      'agent-manager-lists-worktree',
      { owner: owner({ agentManager: { files: [`${R}/.kilo/agent-manager.json`], worktrees: new Set([W]) } }) },
    ],
    ['kilo-lock-held', { lock: { state: 'fresh' as const, ageMs: 5_000, pid: 7, hostname: 'h' } }],
    ['lock-location-unknown', { lock: { state: 'unknown' as const } }],
    ['being-seeded', { seedingMs: NOW - 10_000 }],
  ])('refuses with %s', (reason, overrides) => {
    expect(judgeRepo(dead(overrides as Partial<RepoEvidence>), NOW)).toMatchObject({ decision: 'refused', reason });
  });

  it('keeps a repository whose worktree exists, whatever else holds', () => {
    expect(
      judgeRepo(dead({ worktreeExists: 'yes', managed: null, lock: { state: 'fresh', ageMs: 1 } }), NOW),
    ).toMatchObject({ decision: 'kept', reason: 'worktree-present' });
  });

  it('takes a stale lock and a long-dead seeding for no blocker', () => {
    expect(judgeRepo(dead({ lock: { state: 'stale', ageMs: 120_000 } }), NOW).decision).toBe('delete');
    expect(judgeRepo(dead({ seedingMs: NOW - SEEDING_FRESH_MS - 1 }), NOW).decision).toBe('delete');
  });

  it('matches the worktree below the canonical path of its owner too', () => {
    const listed = owner({ path: '/home/ana/link/shop', canonical: R, gitWorktrees: new Set([W]) });
    const spelled = dead({
      worktree: '/home/ana/link/shop/.kilo/worktrees/feature',
      repo: { projectId: 'p1', gitdir: '/g', name: sha1('/home/ana/link/shop/.kilo/worktrees/feature') },
      owner: listed,
      ownerPath: listed.path,
    });
    expect(judgeRepo(spelled, NOW)).toMatchObject({ decision: 'refused', reason: 'worktree-still-registered' });
  });
});
