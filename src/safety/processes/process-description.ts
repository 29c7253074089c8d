/** Who holds an item, as a person reads it: the pid, what it runs, and whose it is. */
export interface ProcessDescription {
  pid: number;
  /** Its command line (`sleep 600`), cut to a readable length; `[comm]` when it has none (a kernel thread, a zombie). */
  command: string;
  /** Its real user, as refusals name users (`uid 1001 (ana)`, `root`); null when /proc no longer says. */
  user: string | null;
}

/** `process 4242 (sleep 600, run by uid 1001 (ana))`: each of them, for a sentence. */
export function nameProcesses(holders: readonly ProcessDescription[], total: number): string {
  const named = holders.map(
    (holder) => `${holder.pid} (${holder.command}${holder.user === null ? '' : `, run by ${holder.user}`})`,
  );
  const more = total > holders.length ? ` and ${total - holders.length} more` : '';
  return `process${total === 1 ? '' : 'es'} ${named.join(', ')}${more}`;
}
