import type { ProviderName } from './types.js';

/** What a pass tells, as it goes, whoever watches it (a person at a terminal); never part of its result. */
export interface PassProgress {
  /** A provider starts gathering. */
  gathering(provider: ProviderName): void;
  /** A tree was walked for its size (each root is told once). */
  measured(root: string, bytes: number): void;
  /** One more candidate of `provider` has its verdict. */
  judged(provider: ProviderName): void;
}
