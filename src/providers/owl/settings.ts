import { parse } from 'yaml';
import { errorMessage } from '../../model/errors.js';
import { readFileOrNull } from '../../safety/fs/read.js';
import * as z from 'zod';

export interface ReviewAfter {
  ms: number;
  /** Where the value came from, for the report's detail. */
  source: string;
  /** Why Owl's own setting was not used, when it was there but unreadable. */
  warning?: string;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1e3,
  m: 6e4,
  h: 3.6e6,
  d: 8.64e7,
  w: 6.048e8,
};
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w)/gy;

/** Go's duration text (`168h`, `1h30m`, `1.5h`) or ours (`7d`); null when it is neither. */
function parseOwlDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  PART.lastIndex = 0;
  let total = 0;
  let at = 0;
  for (let match = PART.exec(trimmed); match; match = PART.exec(trimmed)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    at = PART.lastIndex;
  }
  return at === trimmed.length ? Math.round(total) : null;
}

/** Owl's config, of which only `garbageCollection.reviewAfter` matters here: any other shape says nothing of it. */
const owlConfig = z
  .looseObject({ garbageCollection: z.looseObject({ reviewAfter: z.unknown() }).optional().catch(undefined) })
  .catch({});

/** A setting of Owl's own duration text, in milliseconds. */
const owlDuration = z.string().transform((text, ctx) => {
  const ms = parseOwlDuration(text);
  if (ms !== null) return ms;
  ctx.addIssue({ code: 'custom', message: 'is no duration' });
  return z.NEVER;
});

/**
 * How long a job may wait in review. Owl's own `garbageCollection.reviewAfter` for that home
 * wins: it is the policy the user gave the tool itself. agent-janitor's `providers.owl.reviewAfter`
 * applies where Owl's config says nothing (or is unreadable, which is reported).
 */
export async function readReviewAfter(
  configFile: string | null,
  fallbackMs: number,
  fallbackText: string,
): Promise<ReviewAfter> {
  const fallback: ReviewAfter = { ms: fallbackMs, source: `providers.owl.reviewAfter ${fallbackText}` };
  if (!configFile) return fallback;
  let text: string | null;
  try {
    text = await readFileOrNull(configFile);
  } catch (err) {
    return { ...fallback, warning: `${configFile}: cannot read: ${errorMessage(err)}` };
  }
  if (text === null) return fallback;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return { ...fallback, warning: `${configFile}: not valid YAML: ${errorMessage(err).split('\n')[0]}` };
  }
  return reviewAfterIn(doc, configFile, fallback);
}

/**
 * What Owl's config (`doc`, as YAML read it) says: only `garbageCollection.reviewAfter` matters
 * here, and any other shape says nothing of it.
 */
export function reviewAfterIn(doc: unknown, configFile: string, fallback: ReviewAfter): ReviewAfter {
  const value = owlConfig.parse(doc).garbageCollection?.reviewAfter;
  if (value === undefined || value === null) return fallback;
  const ms = owlDuration.safeParse(value);
  if (!ms.success)
    return {
      ...fallback,
      warning: `${configFile}: garbageCollection.reviewAfter ${JSON.stringify(value)} is no duration`,
    };
  return { ms: ms.data, source: `garbageCollection.reviewAfter ${value} in ${configFile}` };
}
