import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { sandboxCommit, sandboxGit, sandboxRepo, writeSandboxFile } from '../../engines/git-worktree/sandbox.js';

const SOURCE = (name: string) => `https://github.com/acme/${name}.git`;

/**
 * A Codex home after upgrades that went wrong, as Codex 0.169.0 lays it out: the live copy of
 * marketplace `acme` (configured, whole), the staging clone of a killed upgrade (its `.lock` free),
 * an old copy of `acme` left in a backup by an upgrade killed after its renames, the backup of
 * marketplace `studio` left by an upgrade killed between them (its only copy), a staging folder of
 * an older Codex, and a plugin clone of a sync that died.
 */
export const codexSandbox: SandboxBuilder = {
  name: 'codex',
  async build(ctx: SandboxContext): Promise<void> {
    const codexHome = path.join(ctx.home, '.codex');
    const tmp = path.join(codexHome, '.tmp');
    const marketplaces = path.join(tmp, 'marketplaces');
    await writeSandboxFile(
      path.join(codexHome, 'config.toml'),
      ['acme', 'studio']
        .map((name) => `[marketplaces.${name}]\nsource_type = "git"\nsource = "${SOURCE(name)}"\n`)
        .join('\n'),
    );
    for (const lock of ['.staging.lock', '.staging-cleanup.lock'])
      await writeSandboxFile(path.join(marketplaces, lock), '');
    await writeSandboxFile(path.join(tmp, 'plugins.sync.lock'), '');

    const live = await marketplace(path.join(marketplaces, 'acme'), 'acme');
    const staging = path.join(marketplaces, '.staging', 'marketplace-linux-Q7xk2P');
    await writeSandboxFile(path.join(staging, '.lock'), '');
    const cloneOfLive = (to: string) => sandboxGit(ctx.root, 'clone', '-q', '--no-hardlinks', live, to);
    await cloneOfLive(path.join(staging, 'checkout'));
    await cloneOfLive(path.join(marketplaces, 'marketplace-backup-Hq3vLm', 'root'));
    await marketplace(path.join(marketplaces, 'marketplace-backup-T9cRw2', 'root'), 'studio');
    await cloneOfLive(path.join(marketplaces, '.staging', 'marketplace-upgrade-aB3dE9'));
    await cloneOfLive(path.join(tmp, 'plugins-clone-Zp4Lq8'));
    await backdateTree(tmp, ctx.old);
  },
};

/** A marketplace's git checkout with its manifest and the install record Codex writes. */
async function marketplace(folder: string, name: string): Promise<string> {
  await writeSandboxFile(
    path.join(folder, '.agents', 'plugins', 'marketplace.json'),
    `${JSON.stringify({ name, plugins: [] })}\n`,
  );
  await sandboxRepo(folder);
  const revision = await sandboxCommit(folder, 'plugins/lint/README.md', '# lint\n', 'Add the lint plugin');
  const record = { source_type: 'git', source: SOURCE(name), ref_name: null, sparse_paths: [], revision };
  await writeSandboxFile(path.join(folder, '.codex-marketplace-install.json'), `${JSON.stringify(record)}\n`);
  return folder;
}
