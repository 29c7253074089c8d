/** A key path as a message shows it: `providers.worktrees.sets[0].roots[1]`. */
export function formatKey(parts: readonly PropertyKey[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
