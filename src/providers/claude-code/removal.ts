import { RemovalStopped, stopFor } from '../../model/errors.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { Removal } from '../../provider-api/candidate.js';
import { gatherEvidence, pidDomain, tracesOf, type Traces } from './evidence.js';
import { judgeEmptySlugFolder, judgeSessionFolders, withProblems } from './judge.js';
import type { TaskRoot } from './locations.js';
import { isEmpty, listRoot } from './scan.js';

/** What goes: a session folder, a slug folder with its last session folders, or an empty slug folder. */
export interface Target {
  path: string;
  kind: 'session' | 'slug' | 'empty-slug';
  slug: string;
}

/**
 * A tree removal whose guard proves the case again right before the quarantine rename: the root
 * listed again, the registries and adopted shells read again and matched to /proc, and every
 * process's environment looked at again. Anything that keeps the folder now (a session started in
 * the project, a shell that carries the session id, a new session folder in a slug folder that was
 * to go whole) stops the removal with its own reason. The executor's last proof follows (rule 21).
 */
export function sessionRemoval(root: TaskRoot, target: Target, env: NodeJS.ProcessEnv): Removal {
  return {
    type: 'tree',
    guard: {
      async recheck(ctx) {
        const judgement = await judgeTargetAgain(root, target, env, tracesOf(ctx.lookAtProcesses()));
        if (judgement.decision !== 'delete') throw stopFor(judgement);
        return undefined;
      },
    },
  };
}

async function judgeTargetAgain(
  root: TaskRoot,
  target: Target,
  env: NodeJS.ProcessEnv,
  traces: Traces,
): Promise<OwnerJudgement> {
  let listing: ReturnType<typeof listRoot>;
  try {
    listing = listRoot(root);
  } catch (err) {
    throw new RemovalStopped(
      'refused',
      'changed-during-inspection',
      `${root.path} cannot be listed again: ${String(err)}`,
    );
  }
  const evidence = withProblems(
    await gatherEvidence(root.user, [root], traces, pidDomain(traces.procRoot), env),
    listing.problems,
  );
  const verdicts = judgeSessionFolders(
    listing.slugs.flatMap((slug) => slug.sessions),
    listing.links,
    evidence,
  );
  const changed = (detail: string): never => {
    throw new RemovalStopped('refused', 'changed-during-inspection', detail);
  };
  if (target.kind === 'session')
    return verdicts.get(target.path) ?? changed(`${target.path} is no longer a session folder of ${root.path}`);
  const slug =
    listing.slugs.find((each) => each.path === target.path) ??
    changed(`${target.path} is no longer a project folder of ${root.path}`);
  if (target.kind === 'empty-slug')
    return isEmpty(slug) ? judgeEmptySlugFolder(target.slug, evidence) : changed(`${target.path} is no longer empty`);
  if (slug.others > 0 || slug.quarantines.length > 0 || slug.sessions.length === 0)
    changed(`${target.path} now holds more than session folders`);
  for (const session of slug.sessions) {
    const verdict = verdicts.get(session.path);
    if (verdict?.decision !== 'delete') return verdict ?? changed(`${session.path} was not judged again`);
  }
  return verdicts.get(slug.sessions[0]?.path as string) as OwnerJudgement;
}
