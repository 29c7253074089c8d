import os from 'node:os';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { readFile } from '../safety/fs/read.js';
import { ConfigError, errorCode, errorMessage } from '../model/errors.js';
import { parseDuration } from '../util/duration.js';
import { describeIssue } from '../util/zod-issue.js';
import {
  type ConfigSection,
  configSchemaFor,
  type EffectiveConfig,
  type ParsedConfig,
  pushgatewayUrl,
} from './schema.js';

export interface ConfigOverrides {
  homes?: string[];
  minAge?: string;
  reportDir?: string;
  metricsFile?: string;
  pushgateway?: string;
}

export interface LoadOptions<P> {
  /** Every provider whose section the file may hold (src/providers/registry.ts). */
  providers: readonly P[];
  file?: string;
  env: NodeJS.ProcessEnv;
  overrides?: ConfigOverrides;
  isRoot?: boolean;
}

/** Reads, validates and completes the config; every error names the file and the key. */
export async function loadConfig<P extends ConfigSection<P>>(options: LoadOptions<P>): Promise<EffectiveConfig> {
  // An empty variable names no file (a unit's `Environment=AGENT_JANITOR_CONFIG=`), as it does in a shell.
  const file = options.file ?? (options.env.AGENT_JANITOR_CONFIG || null);
  const fromVariable = options.file === undefined && file !== null;
  const raw = file === null ? {} : await readConfigFile(path.resolve(file), fromVariable);
  const where = file === null ? 'built-in defaults' : path.resolve(file);
  const checked = await configSchemaFor(options.providers).safeParseAsync(raw);
  if (!checked.success) throw new ConfigError(`${where}: ${describeIssue(checked.error)}`);
  const parsed = checked.data;
  let config = complete(parsed, file === null ? null : path.resolve(file), options);
  // A provider that completes its own section (the worktrees provider merges its built-in sets)
  // does so once every other section is read.
  for (const provider of options.providers) {
    if (!provider.configure) continue;
    const section = provider.configure({
      config,
      homes: config.homes,
      env: options.env,
      registry: options.providers,
      where,
    });
    config = { ...config, providers: { ...config.providers, [provider.name]: section } };
  }
  return config;
}

/** Why a config file cannot be read, in words; the errno's own text otherwise. */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'there is no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a file on its path is not a folder',
  ELOOP: 'a symbolic link on its path loops',
};

/** `fromVariable`: the file was named by $AGENT_JANITOR_CONFIG, which the error then says (a command line may name none). */
async function readConfigFile(file: string, fromVariable: boolean): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file);
  } catch (err) {
    const why = UNREADABLE[errorCode(err) ?? ''] ?? errorMessage(err);
    const named = fromVariable ? ' named by $AGENT_JANITOR_CONFIG' : '';
    throw new ConfigError(`${file}: cannot read the config file${named}: ${why}`);
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) {
    const position = problem.linePos?.[0];
    const at = position === undefined ? '' : ` at line ${position.line}, column ${position.col}`;
    // The parser's first line, without the position it repeats at its end (`… at line 2, column 1:`).
    const why = (problem.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
    throw new ConfigError(`${file}: not valid YAML${at}: ${why}`);
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(
      `${file}: the config must be a YAML mapping of keys, not a ${Array.isArray(value) ? 'list' : typeof value}`,
    );
  }
  return value;
}

function complete<P>(data: ParsedConfig, source: string | null, options: LoadOptions<P>): EffectiveConfig {
  const { env, overrides = {} } = options;
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  if (overrides.minAge !== undefined && parseDuration(overrides.minAge) === null) {
    throw new ConfigError(
      `--min-age: expected a duration such as 0s, 90s, 30m, 1h or 7d, got ${JSON.stringify(overrides.minAge)}`,
    );
  }
  const pushgateway = overrides.pushgateway === undefined ? undefined : pushgatewayUrl.safeParse(overrides.pushgateway);
  if (pushgateway?.success === false) {
    const why = pushgateway.error.issues[0]?.message ?? 'Invalid URL';
    throw new ConfigError(`--pushgateway: ${why}, got ${JSON.stringify(overrides.pushgateway)}`);
  }
  const home = env.HOME || os.homedir();
  const homes = overrides.homes?.length ? overrides.homes : (data.homes ?? [home]);
  const reportDir = overrides.reportDir ?? data.reportDir ?? defaultReportDir(env, home, isRoot);
  const metrics = { ...data.metrics };
  if (overrides.metricsFile !== undefined) metrics.textfile = overrides.metricsFile;
  // Paths as a pass uses them, relative to the folder it starts in: what `config` prints is what runs.
  if (metrics.textfile !== undefined) metrics.textfile = path.resolve(expandTilde(metrics.textfile, home));
  if (pushgateway?.success) {
    metrics.pushgateway = { url: pushgateway.data, job: metrics.pushgateway?.job ?? 'agent-janitor' };
  }
  return {
    ...data,
    providers: data.providers as EffectiveConfig['providers'],
    homes: homes.map((entry) => path.resolve(expandTilde(entry, home))),
    minAge: overrides.minAge ?? data.minAge,
    reportDir: path.resolve(expandTilde(reportDir, home)),
    metrics,
    source,
  };
}

function defaultReportDir(env: NodeJS.ProcessEnv, home: string, isRoot: boolean): string {
  if (isRoot) return '/var/lib/agent-janitor';
  const stateHome =
    env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(stateHome, 'agent-janitor');
}

function expandTilde(entry: string, home: string): string {
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return path.join(home, entry.slice(2));
  return entry;
}
