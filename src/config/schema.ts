import * as z from 'zod';
import { duration, nonEmptyString, pathList } from './sections.js';
import { scheduleProblem } from './cron-schedule.js';
import { parseListenAddress } from './listen-address.js';
import { size } from './size.js';

// The config file's shape. Every check a later `run` or `serve` would make of a value is made
// here, so `agent-janitor config` refuses all that they would. Defaults are functions: each file
// gets its own lists and sections, and a section left out is read as an empty one (`prefault`).

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

/** What the config loader is given of each provider: its name and its section, and how it completes it. */
export interface ConfigSection<P> {
  name: string;
  /** Its section of the config file, `providers.<name>`, with its defaults; `enabled` is always there. */
  section: z.ZodType<{ enabled: boolean }>;
  /** Completes its section once the whole file is read; throws a ConfigError naming `ctx.where`. */
  configure?(ctx: SectionContext<P>): { enabled: boolean };
}

/** What a provider that completes its section is told: the config so far, and every provider. */
export interface SectionContext<P> {
  config: EffectiveConfig;
  homes: string[];
  env: NodeJS.ProcessEnv;
  registry: readonly P[];
  /** The config file, or `built-in defaults`, as errors name it. */
  where: string;
}

/** The keys of the config file that are no provider's. */
const GENERAL = {
  // One home may be written without a list, as a provider's folders may (`homes: /home/*`).
  homes: pathList.optional(),
  minAge: duration.default('1h'),
  reportDir: nonEmptyString.optional(),
  processCheck: z.enum(['auto', 'required', 'off']).default('auto'),
  // Where each tool's disk goes, by category: the walk of the tools' folders beside their items.
  footprint: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
  metrics: z
    .strictObject({
      textfile: nonEmptyString.optional(),
      pushgateway: z.strictObject({ url: pushgatewayUrl, job: nonEmptyString.default('agent-janitor') }).optional(),
    })
    .prefault({}),
  serve: z
    .strictObject({ schedule: schedule.default('*/30 * * * *'), listen: listen.default('0.0.0.0:9464') })
    .prefault({}),
  // SQLite write-ahead logs smaller than this are left as they are (SYSTEMS.md section 9).
  reclaim: z.strictObject({ walMinBytes: size.default('64MiB') }).prefault({}),
};

/**
 * The whole config file for these providers; parsing it fills in every default. The `providers`
 * section is each provider's own (src/providers/<name>/config.ts), every one optional, a section
 * left out read as an empty one.
 */
export function configSchemaFor(sections: ReadonlyArray<{ name: string; section: z.ZodType<{ enabled: boolean }> }>) {
  const providers = z.strictObject(Object.fromEntries(sections.map((each) => [each.name, each.section])));
  return z.strictObject({ ...GENERAL, providers: providers.prefault({}) });
}

/** The config file as read: every key the file left out that has a default has it. */
export type ParsedConfig = z.output<z.ZodObject<typeof GENERAL>> & { providers: ProvidersConfig };

/** The sections of the providers, each with its final values; a provider reads its own (its config.ts). */
type ProvidersConfig = Readonly<Record<string, { enabled: boolean }>>;

/** The config after defaults and command-line overrides: every key has its final value. */
export type EffectiveConfig = Omit<ParsedConfig, 'homes' | 'reportDir' | 'providers'> & {
  homes: string[];
  reportDir: string;
  providers: ProvidersConfig;
  /** The file it was read from, or null for built-in defaults. */
  source: string | null;
};
