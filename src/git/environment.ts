/**
 * The variables of git's own family that a git run by agent-janitor may inherit. Everything else
 * named `GIT_*` is dropped: `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_COMMON_DIR` and
 * `GIT_OBJECT_DIRECTORY` would make git answer about another repository; `GIT_CONFIG_*` (files,
 * `COUNT`/`KEY_n`/`VALUE_n`, `PARAMETERS`) could hide untracked files or name another excludes
 * file; `GIT_NAMESPACE` hides refs; `GIT_*_PATHSPECS`, `GIT_CEILING_DIRECTORIES`, `GIT_TRACE*`,
 * `GIT_TEST_*` and any variable a later git adds change what git looks at or writes. A variable
 * that is not known to be harmless is not trusted. `GIT_EXEC_PATH` only says where git's own
 * programs are installed, and git may not run without it.
 */
export const INHERITED_GIT_VARIABLES: ReadonlySet<string> = new Set(['GIT_EXEC_PATH']);

/** `env` without any variable that could change which repository git reads or how it answers. */
export function scrubGitEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const scrubbed: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (name.toUpperCase().startsWith('GIT_') && !INHERITED_GIT_VARIABLES.has(name)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}
