import type { Provider } from '../core/types.js';
import { watchfireProvider } from './watchfire/provider.js';
import { kiloProvider } from './kilo/provider.js';
import { owlProvider } from './owl/provider.js';
import { worktreesProvider } from './worktrees/provider.js';
import { clineProvider } from './cline/provider.js';
import { rooProvider } from './roo/provider.js';
// One import and one entry per provider, in the order a pass runs them.

/** Every provider, in the order a pass runs them. */
export function allProviders(): Provider[] {
  return [watchfireProvider, kiloProvider, owlProvider, worktreesProvider, clineProvider, rooProvider];
}
