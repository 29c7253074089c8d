import { ConfigError } from '../core/errors.js';
import { kernelFolderProblem } from '../safety/locks/own-folder.js';

/**
 * Refuses a report folder that no pass could use (one on a kernel file system: a pass refuses it
 * too, exit 2), naming where it was given. It only looks; a folder that cannot be looked at yet is
 * left to the pass, which names what stops it.
 */
export async function rejectUnusableReportDir(reportDir: string, where: string): Promise<void> {
  const problem = await kernelFolderProblem(reportDir, 'the report folder').catch(() => null);
  if (problem) throw new ConfigError(`${where}: ${problem}`);
}
