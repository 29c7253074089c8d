/** Bad usage or an invalid config: exit 2, nothing read or changed. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export class ConfigError extends UsageError {
  override name = 'ConfigError';
}

/** Another pass holds the run lock: exit 75, nothing done. */
export class LockHeldError extends Error {
  override name = 'LockHeldError';
}

/** A provider's source of truth could not be read: that provider fails closed, the pass goes on. */
export class SourceOfTruthError extends Error {
  override name = 'SourceOfTruthError';
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** What was thrown, as an Error: an answer to keep beside the others, not to throw again. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(errorMessage(err));
}

export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
