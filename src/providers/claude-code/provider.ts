import type { GatherContext, Gathering, Provider } from '../../core/types.js';

export const claudeCodeGather: Pick<Provider, 'gather'> = {
  async gather(_ctx: GatherContext): Promise<Gathering> {
    return { roots: [], candidates: [] };
  },
};
