import type { Provider } from '../core/types.js';

/** Every provider, in the order a pass runs them. */
export function allProviders(): Provider[] {
  return [];
}
