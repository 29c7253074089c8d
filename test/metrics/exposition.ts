/** A reader of the Prometheus text format, independent of the code under test. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    samples.push({
      name: match[1] as string,
      labels: parseLabels(match[3] ?? ''),
      value: parseValue(match[4] as string),
    });
  }
  return samples;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
  for (let match = pair.exec(text); match !== null; match = pair.exec(text)) {
    labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (pair.lastIndex >= text.length) break;
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** The samples of `name`, with only the labels named in `keep` (job and instance dropped, say). */
export function series(samples: Sample[], name: string, keep: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const sample of samples.filter((s) => s.name === name)) {
    const key = keep.map((label) => `${label}=${sample.labels[label] ?? ''}`).join(',');
    out.set(key, sample.value);
  }
  return out;
}

export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find(
    (sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v),
  )?.value;
}

export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return parseExposition(await response.text());
}
