import path from 'node:path';
import { closeSync, openPathSync } from '../safety/fs/descriptors.js';
import { escapeBytes } from '../safety/fs/names.js';

/**
 * How a git run is given paths that are not UTF-8. Node hands a child its arguments and working
 * directory as UTF-8 text, which cannot carry such a path. The working directory can still be one:
 * the folder is opened here and the child is started in `/proc/self/fd/<n>`, which the child
 * enters before it runs git, while it still holds this process's descriptors, so it names that
 * very folder. An argument cannot be passed that way (git opens it after the descriptors are
 * closed), so a path argument becomes relative to a working directory handed over like that:
 * a lone absolute path becomes `./<name>` inside its folder when no working directory was asked
 * for, and a leading `-C <path>` becomes the working directory itself. Other absolute paths are given as
 * descriptors git inherits (child.ts); a relative path that is not UTF-8 is refused.
 */
export interface HandoverPlan {
  /** git's arguments, every one UTF-8. */
  args: string[];
  /** The working directory git runs in: a UTF-8 path, or the path to open and hand over. */
  cwd: string | undefined;
  /** Whether `cwd` is opened and passed as `/proc/self/fd/<n>`. */
  handOver: boolean;
}

export class HandoverRefused extends Error {
  override name = 'HandoverRefused';
}

/** The arguments cannot be given as UTF-8, but each one that is not is an absolute path (child.ts). */
export class NeedsDescriptors extends Error {
  override name = 'NeedsDescriptors';
}

/**
 * Pure: what git is given for `args` run in `cwd`. Throws NeedsDescriptors when only descriptors
 * can carry the paths, HandoverRefused when nothing can.
 */
export function planHandover(args: readonly string[], cwd: string | undefined): HandoverPlan {
  const plan: HandoverPlan = { args: [], cwd, handOver: false };
  let k = 0;
  // git's own options before the command: a `-C <dir>` there that is not UTF-8 is where git runs,
  // so it becomes the working directory; every other option stays as it is.
  while (k < args.length && (args[k] as string).startsWith('-')) {
    const option = args[k] as string;
    const value = args[k + 1];
    if ((option === '-C' || option === '-c') && value === undefined) break;
    if (option === '-C' && !(value as string).isWellFormed()) plan.cwd = path.resolve(plan.cwd ?? '/', value as string);
    else if (option === '-C' || option === '-c') plan.args.push(option, value as string);
    else plan.args.push(option);
    k += option === '-C' || option === '-c' ? 2 : 1;
  }
  let moved = false;
  const keepsC = plan.args.includes('-C');
  for (; k < args.length; k += 1) {
    const arg = args[k] as string;
    if (arg.isWellFormed()) {
      plan.args.push(arg);
      continue;
    }
    const name = path.basename(arg);
    if (
      arg.startsWith('/') &&
      !moved &&
      !keepsC &&
      plan.cwd === undefined &&
      name.isWellFormed() &&
      name !== '..' &&
      name !== '.'
    ) {
      plan.cwd = path.dirname(arg);
      plan.args.push(`./${name}`);
      moved = true;
      continue;
    }
    if (arg.startsWith('/')) throw new NeedsDescriptors(arg);
    throw new HandoverRefused(
      `git ${args.map(escapeBytes).join(' ')}: the argument ${escapeBytes(arg)} is not UTF-8 and is no path git could be handed`,
    );
  }
  for (const arg of plan.args)
    if (!arg.isWellFormed()) throw new HandoverRefused(`git ${args.map(escapeBytes).join(' ')}: ${escapeBytes(arg)}`);
  plan.handOver = plan.cwd !== undefined && !plan.cwd.isWellFormed();
  return plan;
}

/** The working directory to start git in, and how to let it go once git has exited. */
export interface HandedOver {
  cwd: string;
  release: () => void;
}

/**
 * Opens the planned working directory when it must be handed over. Never the folder the pass
 * started in when none is asked for: git run as another user may not be able to enter it.
 */
export function handOver(plan: HandoverPlan): HandedOver {
  if (!plan.handOver || plan.cwd === undefined) return { cwd: plan.cwd ?? '/', release: () => {} };
  const fd = openPathSync(plan.cwd);
  let open = true;
  return {
    cwd: `/proc/self/fd/${fd}`,
    release: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
