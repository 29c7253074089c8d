/**
 * The fields of a `/proc/<pid>/stat` after the command name, the state first (field 3): the name
 * is in parentheses and may hold spaces and parentheses, so they start past its last `)`.
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
