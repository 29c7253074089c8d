import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { geminiLocations, historyDir, tmpDir } from './layout.js';

/**
 * Where Gemini CLI's and Qwen Code's state goes (README.md, "Footprint"): the tool's folder, its
 * shadow repositories, and each project's folder of chats, logs, tool outputs and checkpoints.
 */
export async function geminiFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return geminiLocations(ctx).flatMap(({ dir, basis }): FootprintPlace[] => [
    { path: dir, category: 'other', basis },
    { path: historyDir(dir), category: 'checkpoints', basis },
    { path: tmpDir(dir), category: 'other', basis },
    { path: tmpDir(dir), pattern: '*/chats', category: 'transcripts', basis },
    { path: tmpDir(dir), pattern: '*/logs', category: 'logs', basis },
    { path: tmpDir(dir), pattern: '*/tool-outputs', category: 'tool-output', basis },
    { path: tmpDir(dir), pattern: '*/checkpoints', category: 'checkpoints', basis },
  ]);
}
