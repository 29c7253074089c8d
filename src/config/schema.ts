import { z } from 'zod';
import { parseDuration } from '../util/duration.js';

const duration = z.string().refine((text) => parseDuration(text) !== null, {
  message: 'expected a duration such as 0s, 90s, 30m, 1h or 7d',
});

const pathList = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .transform((value) => (typeof value === 'string' ? [value] : value));

const watchfire = z.strictObject({
  enabled: z.boolean().default(true),
  root: pathList.optional(),
});

const kilo = z.strictObject({
  enabled: z.boolean().default(true),
  apps: z.array(z.enum(['kilo', 'opencode'])).default(['kilo', 'opencode']),
  dataDir: pathList.optional(),
  stateDir: pathList.optional(),
});

const owl = z.strictObject({
  enabled: z.boolean().default(true),
  reviewAfter: duration.default('7d'),
  dataDir: pathList.optional(),
  stateDir: pathList.optional(),
});

// Every key but the name is optional here: a set named like a built-in one overrides only what it
// says (src/config/worktree-sets.ts merges them and requires roots of any other set).
const worktreeSet = z.strictObject({
  name: z.string().min(1),
  roots: z.array(z.string().min(1)).min(1).optional(),
  idleAfter: duration.optional(),
  enabled: z.boolean().optional(),
});

const worktrees = z.strictObject({
  enabled: z.boolean().default(true),
  sets: z.array(worktreeSet).default([]),
});

const cline = z.strictObject({
  enabled: z.boolean().default(true),
  userDataDir: pathList.optional(),
  dataDir: pathList.optional(),
});

const roo = z.strictObject({
  enabled: z.boolean().default(true),
  extensions: z.array(z.enum(['roo', 'kilo'])).default(['roo', 'kilo']),
  userDataDir: pathList.optional(),
});

const listen = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/, {
  message: 'expected HOST:PORT, such as 0.0.0.0:9464',
});

export const configSchema = z.strictObject({
  homes: z.array(z.string().min(1)).min(1).optional(),
  minAge: duration.default('1h'),
  reportDir: z.string().min(1).optional(),
  processCheck: z.enum(['auto', 'required', 'off']).default('auto'),
  metrics: z
    .strictObject({
      textfile: z.string().min(1).optional(),
      pushgateway: z
        .strictObject({
          url: z.string().url(),
          job: z.string().min(1).default('agent-janitor'),
        })
        .optional(),
    })
    .default({}),
  serve: z
    .strictObject({
      schedule: z.string().min(1).default('*/30 * * * *'),
      listen: listen.default('0.0.0.0:9464'),
    })
    .default({ schedule: '*/30 * * * *', listen: '0.0.0.0:9464' }),
  providers: z
    .strictObject({
      watchfire: watchfire.default({ enabled: true }),
      kilo: kilo.default({ enabled: true, apps: ['kilo', 'opencode'] }),
      owl: owl.default({ enabled: true, reviewAfter: '7d' }),
      worktrees: worktrees.default({ enabled: true, sets: [] }),
      cline: cline.default({ enabled: true }),
      roo: roo.default({ enabled: true, extensions: ['roo', 'kilo'] }),
    })
    .default({
      watchfire: { enabled: true },
      kilo: { enabled: true, apps: ['kilo', 'opencode'] },
      owl: { enabled: true, reviewAfter: '7d' },
      worktrees: { enabled: true, sets: [] },
      cline: { enabled: true },
      roo: { enabled: true, extensions: ['roo', 'kilo'] },
    }),
});

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
