import { parseDuration } from '../util/duration.js';
import {
  accept,
  boolean,
  type Check,
  list,
  mapping,
  nonEmptyString,
  oneOf,
  optional,
  refuse,
  section,
  stringWhere,
  withDefault,
  wrongType,
} from './check.js';

/** A worktree set as the config writes it: every key but the name may be left to a built-in set. */
interface ConfiguredWorktreeSet {
  name: string;
  roots?: string[];
  idleAfter?: string;
  enabled?: boolean;
}

/** The config file as read: every key the file left out that has a default has it. */
export interface ParsedConfig {
  homes?: string[];
  minAge: string;
  reportDir?: string;
  processCheck: 'auto' | 'required' | 'off';
  metrics: {
    textfile?: string;
    pushgateway?: { url: string; job: string };
  };
  serve: { schedule: string; listen: string };
  providers: {
    watchfire: { enabled: boolean; root?: string[] };
    kilo: { enabled: boolean; apps: ('kilo' | 'opencode')[]; dataDir?: string[]; stateDir?: string[] };
    owl: { enabled: boolean; reviewAfter: string; dataDir?: string[]; stateDir?: string[] };
    worktrees: { enabled: boolean; sets: ConfiguredWorktreeSet[] };
    cline: { enabled: boolean; userDataDir?: string[]; dataDir?: string[] };
    roo: { enabled: boolean; extensions: ('roo' | 'kilo')[]; userDataDir?: string[] };
  };
}

const duration = stringWhere(
  (text) => parseDuration(text) !== null,
  'expected a duration such as 0s, 90s, 30m, 1h or 7d',
);

const nonEmptyStrings = list(nonEmptyString, { nonEmpty: true });

/**
 * One path or a list of them, none empty, answered as a list. Anything else, a list holding a
 * number included, is refused at the key itself with the bare `Invalid input` zod gives a value
 * that fits none of a union's alternatives.
 */
const pathList: Check<string[]> = (value, path) => {
  if (typeof value === 'string') {
    const checked = nonEmptyString(value, path);
    return checked.ok ? accept([checked.value]) : checked;
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return nonEmptyStrings(value, path);
  return refuse(path, 'Invalid input');
};

/**
 * A URL as zod's `z.string().url()` takes one (zod 4, with no protocol or hostname asked for): the
 * text, trimmed, is one `URL.canParse` accepts, of any scheme, and the value kept is that text
 * without tabs and line breaks, which the URL parser drops too. `--pushgateway` alone asks for http(s).
 */
const url: Check<string> = (value, path) => {
  if (typeof value !== 'string') return wrongType('string', value, path);
  const trimmed = value.trim();
  return URL.canParse(trimmed) ? accept(trimmed.replace(/[\t\n\r]/g, '')) : refuse(path, 'Invalid URL');
};

const LISTEN = /^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/;
const listen = stringWhere((text) => LISTEN.test(text), 'expected HOST:PORT, such as 0.0.0.0:9464');

const enabled = withDefault(boolean, () => true);

// Every key but the name is optional here: a set named like a built-in one overrides only what it
// says (src/config/worktree-sets.ts merges them and requires roots of any other set).
const worktreeSet = mapping<ConfiguredWorktreeSet>({
  name: nonEmptyString,
  roots: optional(nonEmptyStrings),
  idleAfter: optional(duration),
  enabled: optional(boolean),
});

type Providers = ParsedConfig['providers'];

const providers = section<Providers>({
  watchfire: section({ enabled, root: optional(pathList) }),
  kilo: section<Providers['kilo']>({
    enabled,
    apps: withDefault(list(oneOf(['kilo', 'opencode'])), () => ['kilo', 'opencode']),
    dataDir: optional(pathList),
    stateDir: optional(pathList),
  }),
  owl: section({
    enabled,
    reviewAfter: withDefault(duration, () => '7d'),
    dataDir: optional(pathList),
    stateDir: optional(pathList),
  }),
  worktrees: section({ enabled, sets: withDefault(list(worktreeSet), () => []) }),
  cline: section({ enabled, userDataDir: optional(pathList), dataDir: optional(pathList) }),
  roo: section<Providers['roo']>({
    enabled,
    extensions: withDefault(list(oneOf(['roo', 'kilo'])), () => ['roo', 'kilo']),
    userDataDir: optional(pathList),
  }),
});

/** The whole config file: checks it and fills in every default. */
export const checkConfig = mapping<ParsedConfig>({
  homes: optional(nonEmptyStrings),
  minAge: withDefault(duration, () => '1h'),
  reportDir: optional(nonEmptyString),
  processCheck: withDefault(oneOf(['auto', 'required', 'off']), () => 'auto'),
  metrics: section({
    textfile: optional(nonEmptyString),
    pushgateway: optional(mapping({ url, job: withDefault(nonEmptyString, () => 'agent-janitor') })),
  }),
  serve: section({
    schedule: withDefault(nonEmptyString, () => '*/30 * * * *'),
    listen: withDefault(listen, () => '0.0.0.0:9464'),
  }),
  providers,
});

/** One set of worktree roots after the built-in sets and the config's are merged. */
export interface WorktreeSetConfig {
  name: string;
  roots: string[];
  idleAfter: string;
  enabled: boolean;
}

type ParsedProviders = ParsedConfig['providers'];

/** The config after defaults and command-line overrides: every key has its final value. */
export type EffectiveConfig = Omit<ParsedConfig, 'homes' | 'reportDir' | 'providers'> & {
  homes: string[];
  reportDir: string;
  providers: Omit<ParsedProviders, 'worktrees'> & {
    worktrees: { enabled: boolean; sets: WorktreeSetConfig[] };
  };
  /** The file it was read from, or null for built-in defaults. */
  source: string | null;
};
