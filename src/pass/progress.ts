import type { ProviderName, ReportItem } from '../model/types.js';

/**
 * What a pass tells, as it goes, whoever watches it (a person at a terminal); never part of its
 * result. A pass goes through three phases in order: gathering, inspecting, deleting (not in a
 * report-only pass, nor when nothing is to go).
 */
export interface PassProgress {
  /** A provider starts gathering: the `nth` (from 1) of the `of` providers the pass reconciles. */
  gathering(provider: ProviderName, nth: number, of: number): void;
  /** The provider at work has gathered: it found `count` candidates. */
  gathered(provider: ProviderName, count: number): void;
  /** A tree was walked for its size (each root is told once). */
  measured(root: string, bytes: number): void;
  /** Inspecting starts: `total` candidates are to be inspected and judged. */
  inspecting(total: number): void;
  /** One more candidate was inspected. */
  inspected(): void;
  /** Deleting starts: `total` deletions are planned, of `bytes` in all. */
  deleting(total: number, bytes: number): void;
  /** One planned deletion ended, as `outcome` says: deleted, failed or refused. */
  settled(outcome: ReportItem): void;
}
