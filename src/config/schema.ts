import * as z from 'zod';
import { parseDuration } from '../util/duration.js';
import { scheduleProblem } from './cron-schedule.js';
import { parseListenAddress } from './listen-address.js';

// The config file's shape. Every check a later `run` or `serve` would make of a value is made
// here, so `agent-janitor config` refuses all that they would. Defaults are functions: each file
// gets its own lists and sections, and a section left out is read as an empty one (`prefault`).

const duration = z.string().refine((text) => parseDuration(text) !== null, {
  message: 'expected a duration such as 0s, 90s, 30m, 1h or 7d',
});

const nonEmptyString = z.string().min(1);
const nonEmptyStrings = z.array(nonEmptyString).min(1);

/** One path or a list of them, none empty, read as a list. */
const pathList = z
  .union([nonEmptyString, nonEmptyStrings])
  .transform((value) => (typeof value === 'string' ? [value] : value));

const HTTP_URL = 'Invalid URL: expected http:// or https://, such as http://pushgateway:9091';

/**
 * Where the metrics are pushed: a URL zod takes (trimmed, tabs and line breaks dropped) of http or
 * https, with nothing fetch() refuses (a user or password) or that would end up in the wrong
 * place once the grouping key's path is appended (a query, a fragment).
 */
export const pushgatewayUrl = z
  .url({
    protocol: z.regexes.httpProtocol,
    // A value that is no text keeps zod's own message.
    error: (issue) => (issue.code === 'invalid_format' ? HTTP_URL : undefined),
  })
  .refine(
    (text) => {
      const url = URL.parse(text);
      // A `?` or `#` starts a query or fragment, an empty one too (which URL's search and hash omit).
      return url === null || (url.username === '' && url.password === '' && !/[?#]/.test(text));
    },
    { message: 'a Pushgateway URL takes no user, password, query or fragment' },
  );

// Asynchronous, so the config is parsed with safeParseAsync.
const schedule = nonEmptyString.superRefine(async (expression, ctx) => {
  const problem = await scheduleProblem(expression);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const listen = z.string().refine((text) => parseListenAddress(text) !== null, {
  message: 'expected HOST:PORT, such as 0.0.0.0:9464',
});

const enabled = z.boolean().default(true);

// Every key but the name is optional here: a set named like a built-in one overrides only what it
// says (src/config/worktree-sets.ts merges them and requires roots of any other set).
const worktreeSet = z.strictObject({
  name: nonEmptyString,
  roots: nonEmptyStrings.optional(),
  idleAfter: duration.optional(),
  enabled: z.boolean().optional(),
});

const providers = z.strictObject({
  watchfire: z.strictObject({ enabled, root: pathList.optional() }).prefault({}),
  kilo: z
    .strictObject({
      enabled,
      apps: z.array(z.enum(['kilo', 'opencode'])).default(() => ['kilo' as const, 'opencode' as const]),
      dataDir: pathList.optional(),
      stateDir: pathList.optional(),
    })
    .prefault({}),
  owl: z
    .strictObject({
      enabled,
      reviewAfter: duration.default('7d'),
      dataDir: pathList.optional(),
      stateDir: pathList.optional(),
    })
    .prefault({}),
  worktrees: z.strictObject({ enabled, sets: z.array(worktreeSet).default(() => []) }).prefault({}),
  cline: z.strictObject({ enabled, userDataDir: pathList.optional(), dataDir: pathList.optional() }).prefault({}),
  roo: z
    .strictObject({
      enabled,
      extensions: z.array(z.enum(['roo', 'kilo'])).default(() => ['roo' as const, 'kilo' as const]),
      userDataDir: pathList.optional(),
    })
    .prefault({}),
});

/** The whole config file; parsing it fills in every default. */
export const configSchema = z.strictObject({
  homes: nonEmptyStrings.optional(),
  minAge: duration.default('1h'),
  reportDir: nonEmptyString.optional(),
  processCheck: z.enum(['auto', 'required', 'off']).default('auto'),
  metrics: z
    .strictObject({
      textfile: nonEmptyString.optional(),
      pushgateway: z.strictObject({ url: pushgatewayUrl, job: nonEmptyString.default('agent-janitor') }).optional(),
    })
    .prefault({}),
  serve: z
    .strictObject({ schedule: schedule.default('*/30 * * * *'), listen: listen.default('0.0.0.0:9464') })
    .prefault({}),
  providers: providers.prefault({}),
});

/** The config file as read: every key the file left out that has a default has it. */
export type ParsedConfig = z.output<typeof configSchema>;

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
