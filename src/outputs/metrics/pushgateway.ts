import { errorMessage } from '../../model/errors.js';

export interface PushTarget {
  url: string;
  job: string;
}

const PUSH_TIMEOUT_MS = 10_000;

/**
 * The grouping-key URL `<url>/metrics/job/<job>/instance/<host>`. A value holding a `/` cannot be a
 * path segment; the Pushgateway takes it base64url-encoded after a `@base64` suffix on the label name.
 */
export function pushUrl(target: PushTarget, host: string): string {
  const base = target.url.replace(/\/+$/, '');
  return `${base}/metrics/${groupingSegment('job', target.job)}/${groupingSegment('instance', host)}`;
}

function groupingSegment(label: string, value: string): string {
  if (value.includes('/')) return `${label}@base64/${Buffer.from(value).toString('base64url') || '='}`;
  return `${label}/${encodeURIComponent(value)}`;
}

/**
 * POSTs the metrics: the Pushgateway replaces the families the push holds and keeps the others,
 * which is how a failed pass leaves the previous last-success time standing.
 */
export async function pushMetrics(target: PushTarget, host: string, text: string, contentType: string): Promise<void> {
  const url = pushUrl(target, host);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: text,
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`cannot push metrics to ${url}: ${describeFetchError(err)}`);
  }
  if (!response.ok) {
    const body = (await response.text().catch(() => '')).trim().split('\n')[0] ?? '';
    throw new Error(
      `the Pushgateway at ${url} answered ${response.status} ${response.statusText}${body ? `: ${body}` : ''}`,
    );
  }
  await response.body?.cancel().catch(() => undefined);
}

/** fetch() hides the socket error (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) return `${errorMessage(err)} (${errorMessage(cause)})`;
  return errorMessage(err);
}
