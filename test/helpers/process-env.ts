/**
 * Runs `fn` with `vars` set in this process's own environment (a variable leaked into the pass),
 * then puts the environment back as it was: variables added are removed, changed ones restored.
 */
export async function withProcessEnv<T>(vars: NodeJS.ProcessEnv, fn: () => T | Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}
