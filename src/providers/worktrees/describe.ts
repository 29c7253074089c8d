/** "set codex (Codex)": who found the worktree, and the tool of a built-in set. */
export function describeSet(name: string, tool: string | undefined): string {
  return tool ? `set ${name} (${tool})` : `set ${name}`;
}
