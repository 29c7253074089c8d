import { median } from './measure.mjs';

/** Measurements by label, one per repetition; medians and maxima for the table. */
export class Samples {
  constructor() {
    this.byLabel = new Map();
  }

  add(label, result) {
    if (!this.byLabel.has(label)) this.byLabel.set(label, []);
    this.byLabel.get(label).push(result);
    return result;
  }

  all(label) {
    return this.byLabel.get(label) ?? [];
  }

  /** Median of one figure (wall ms unless told) over the repetitions. */
  median(label, pick = (result) => result.ms) {
    const values = this.all(label)
      .map(pick)
      .filter((value) => Number.isFinite(value));
    return values.length > 0 ? median(values) : NaN;
  }

  max(label, pick) {
    return Math.max(...this.all(label).map(pick));
  }

  labels() {
    return [...this.byLabel.keys()];
  }
}

/** Runs labelled tasks once per repetition, rotating their order so no task always goes first. */
export async function interleave(samples, reps, tasks, log) {
  for (let rep = 0; rep < reps; rep += 1) {
    const order = tasks.map((_, index) => tasks[(index + rep) % tasks.length]);
    for (const [label, task] of order) {
      const result = await task();
      samples.add(label, result);
      log(`  ${label.padEnd(26)} ${(result.ms / 1000).toFixed(2)} s`);
    }
  }
}
