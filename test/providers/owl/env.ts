/** The environment of a pass over `home` as its own user: no XDG overrides, no runtime dir. */
export function ownHomeEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    HOME: home,
    XDG_DATA_HOME: '',
    XDG_STATE_HOME: '',
    XDG_CONFIG_HOME: '',
    XDG_RUNTIME_DIR: '',
    CODEX_HOME: '',
    CLAUDE_CONFIG_DIR: '',
    ...extra,
  };
}
