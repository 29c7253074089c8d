import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { loadConfig } from '../config/load.js';
import type { EffectiveConfig } from '../config/schema.js';
import { rejectUnusablePlaces } from '../config/own-places.js';
import { UsageError } from '../model/errors.js';
import { reconcile } from '../reconcile/reconcile.js';
import { startHolders } from './demo-holders.js';
import { renderSummary } from '../outputs/summary.js';
import { PROVIDERS } from '../providers/registry.js';
import { mkdir, mkdtemp, writeFile } from '../safety/fs/write.js';
import { readdirOrEmpty } from '../safety/fs/list.js';
import { createLogger } from './logger.js';
import { isPlainObject } from '../util/plain-object.js';
import { LOG_LEVEL, type DemoArgs } from './options.js';

/** `agent-janitor demo`: builds a sandbox, runs a report-only pass and a real pass, prints both. */
export async function demoCommand(args: DemoArgs): Promise<number> {
  if (args.dir)
    await rejectUnusablePlaces([
      { kind: 'folder', path: path.resolve(args.dir), what: 'the sandbox folder', where: '--dir' },
    ]);
  const root = args.dir ? path.resolve(args.dir) : await mkdtemp(path.join(os.tmpdir(), 'agent-janitor-demo-'));
  if ((await readdirOrEmpty(root)).length > 0)
    throw new UsageError(`--dir: the sandbox folder ${root} must be absent or empty`);
  const home = path.join(root, 'home');
  await mkdir(home, 0o755);
  const old = new Date(Date.now() - 3 * 86_400_000);
  let extra: Record<string, unknown> = {};
  const heldOpen: string[] = [];
  for (const builder of PROVIDERS.flatMap((provider) => provider.sandbox ?? [])) {
    const extras = await builder.build({ root, home, old });
    if (extras?.config) extra = mergeConfig(extra, extras.config);
    heldOpen.push(...(extras?.heldOpen ?? []));
  }
  const configFile = path.join(root, 'agent-janitor.yaml');
  await writeFile(
    configFile,
    stringify({ homes: [home], minAge: '1h', reportDir: path.join(root, 'report'), ...extra }),
  );
  const config = await loadConfig({ providers: PROVIDERS, file: configFile, env: { HOME: home } });
  const log = await createLogger(args['log-level'] ?? LOG_LEVEL.demo);
  // Dead scratch a live process still writes into: refused in-use, its bytes held, in both passes.
  const holders = await startHolders(heldOpen);
  try {
    process.stdout.write(`Sandbox: ${root}\nConfig: ${configFile}\n`);
    for (const [k, pid] of holders.pids.entries())
      process.stdout.write(`Live process ${pid} writes into ${heldOpen[k]} until the demo ends\n`);
    process.stdout.write('\n== report-only pass ==\n');
    const dry = await reconcile({ ...passOf(config, log, home), reportOnly: true });
    process.stdout.write(renderSummary(dry.report, config.reportDir, dry.delivery.errors));
    process.stdout.write('\n== real pass ==\n');
    const real = await reconcile({ ...passOf(config, log, home), reportOnly: false });
    process.stdout.write(renderSummary(real.report, config.reportDir, real.delivery.errors));
    process.stdout.write(`\nTry: agent-janitor report --config ${configFile}\n`);
    return real.exitCode;
  } finally {
    await holders.stop();
  }
}

/**
 * The demo's passes: its sandbox's config, and only its own processes (the holders it starts),
 * so that a live tool of the same user elsewhere on the machine (a Codex whose CODEX_HOME is
 * another folder, say) never leads a demo out of its sandbox.
 */
function passOf(config: EffectiveConfig, log: Logger, home: string) {
  return { config, providers: PROVIDERS, log, env: { HOME: home }, processScope: 'own' as const };
}

function mergeConfig(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    out[key] = isPlainObject(existing) && isPlainObject(value) ? mergeConfig(existing, value) : value;
  }
  return out;
}
