import { describe, expect, it } from 'vitest';
import { ChatFold, companionId, legacyInfo } from '../../../src/providers/gemini/chat-record.js';
import { isGeminiProcess } from '../../../src/providers/gemini/layout.js';
import { retentionRule, selectAcross, selectByRule } from '../../../src/providers/gemini/retention.js';
import { withoutComments } from '../../../src/providers/gemini/settings.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const DAY = 86_400_000;

/** The lines of a chat file as Gemini CLI 0.61.0 wrote it (real-cli.slow.test.ts), shortened. */
const REAL = [
  '{"sessionId":"507766c4-e86a-49fe-84e0-500e43abf323","projectHash":"941f","startTime":"2026-10-06T23:51:30.589Z","lastUpdated":"2026-10-06T23:51:30.589Z","kind":"main"}',
  '{"$set":{"messages":[{"id":"d049","timestamp":"2026-10-06T23:51:30.589Z","type":"user","content":[{"text":"<session_context>\\nThis is the Gemini CLI."}]}]}}',
  '{"id":"e8c6","timestamp":"2026-10-06T23:51:30.609Z","type":"user","content":[{"text":"again"}]}',
  '{"$set":{"lastUpdated":"2026-10-06T23:51:30.609Z"}}',
  '{"id":"aa8d","timestamp":"2026-10-06T23:51:30.747Z","type":"gemini","content":"Done.","thoughts":[],"model":"fake-model"}',
  '{"$set":{"lastUpdated":"2026-10-06T23:51:30.747Z"}}',
];

const fold = (lines: string[]) => {
  const each = new ChatFold();
  for (const line of lines) each.line(line);
  return each;
};

describe("a chat file, read as Gemini CLI's cleanup reads it", () => {
  it('takes lastUpdated from the last $set, and a session with a prompt as resumable', () => {
    const read = fold(REAL);
    expect(read.isJsonl).toBe(true);
    expect(read.info(NOW)).toEqual({ lastUpdatedMs: Date.parse('2026-10-06T23:51:30.747Z') });
  });

  it('holds nothing to resume with only the injected context, or once a rewind dropped every prompt', () => {
    expect(fold(REAL.slice(0, 2)).info(NOW)).toBeNull();
    expect(fold([...REAL, '{"$rewindTo":"e8c6"}']).info(NOW)).toBeNull();
    expect(fold([REAL[0] as string, 'not json', REAL[2] as string]).info(NOW)).not.toBeNull();
    // A subagent's file is no session of its own.
    expect(fold([REAL[0]?.replace('"main"', '"subagent"') as string, REAL[2] as string]).info(NOW)).toBeNull();
  });

  it('reads a missing lastUpdated as now, as Gemini CLI fills it in', () => {
    const read = fold(['{"sessionId":"a","projectHash":"b","startTime":"2020-01-01T00:00:00Z"}', REAL[2] as string]);
    expect(read.info(NOW)).toEqual({ lastUpdatedMs: NOW });
  });

  it('reads an older .json file whole, its mtime standing in for missing timestamps', () => {
    const legacy = JSON.stringify({ sessionId: 'a', messages: [{ id: '1', type: 'user', content: 'hi' }] });
    expect(fold([legacy]).isJsonl).toBe(false);
    expect(legacyInfo(legacy, NOW - DAY)).toEqual({ lastUpdatedMs: NOW - DAY });
    expect(legacyInfo('{"sessionId":"a","messages":[]}', NOW)).toBeNull();
    expect(legacyInfo('[1, 2', NOW)).toBeNull();
  });

  it('takes the companions by the session id of the first line, else of the whole file', () => {
    expect(companionId(REAL.join('\n'), () => null)).toBe('507766c4-e86a-49fe-84e0-500e43abf323');
    expect(companionId('{"sessionId":"b"', () => '{"sessionId":"b"}')).toBe('b');
    expect(companionId(REAL[2] as string, () => REAL.join('\n'))).toBeNull();
  });
});

describe("Gemini CLI's session retention, as its settings give it", () => {
  const layer = (file: string, general: unknown) => ({ file, general });

  it('defaults to 30 days with a 1-day minRetention, and merges each layer key by key', () => {
    expect(retentionRule([])).toMatchObject({ applies: true, maxAgeMs: 30 * DAY, maxCount: null, minRetentionMs: DAY });
    const rule = retentionRule([
      layer('user', { sessionRetention: { maxAge: '7d' } }),
      layer('system', { sessionRetention: { maxCount: 5 } }),
    ]);
    expect(rule).toMatchObject({
      applies: true,
      maxAgeMs: 7 * DAY,
      maxCount: 5,
      words: 'maxAge 7d, maxCount 5 (user over system over the defaults)',
    });
    expect(retentionRule([layer('user', { sessionRetention: { maxAge: '2w', minRetention: '1h' } })])).toMatchObject({
      maxAgeMs: 14 * DAY,
      minRetentionMs: 3_600_000,
    });
  });

  it('is off where Gemini CLI turns its cleanup off', () => {
    const off = (general: unknown) => retentionRule([layer('user', general)]).applies;
    expect(off({ sessionRetention: { enabled: false } })).toBe(false);
    expect(off({ sessionRetention: { maxAge: '30 days' } })).toBe(false);
    expect(off({ sessionRetention: { maxAge: '0d' } })).toBe(false);
    expect(off({ sessionRetention: { maxAge: '12h' } })).toBe(false);
    expect(off({ sessionRetention: { maxCount: 0 } })).toBe(false);
    expect(off({ sessionRetention: { maxAge: '', maxCount: undefined } })).toBe(false);
    expect(off({ sessionRetention: { maxAge: '$KEEP' } })).toBe(false);
    expect(off({ sessionRetention: true })).toBe(false);
    expect(off('not an object')).toBe(false);
    expect(off({ sessionRetention: { maxAge: '12h', minRetention: '6h' } })).toBe(true);
  });

  const entries = [
    { name: 'session-a-11111111.jsonl', info: { lastUpdatedMs: NOW - 40 * DAY } },
    { name: 'session-b-22222222.jsonl', info: { lastUpdatedMs: NOW - 2 * DAY } },
    { name: 'session-c-33333333.jsonl', info: { lastUpdatedMs: NOW - 3 * DAY } },
    { name: 'session-d-44444444.jsonl', info: null },
  ];

  it('selects the empty ones at any age, then by age and by count, newest first', () => {
    const rule = retentionRule([layer('user', { sessionRetention: { maxCount: 1 } })]);
    expect([...selectByRule(entries, rule, NOW)]).toEqual([
      ['session-d-44444444.jsonl', 'empty'],
      ['session-c-33333333.jsonl', 'beyond-count'],
      ['session-a-11111111.jsonl', 'expired'],
    ]);
    // A timestamp that does not parse leaves the order unknown: no file goes by count.
    const unordered = [...entries, { name: 'session-e-55555555.jsonl', info: { lastUpdatedMs: Number.NaN } }];
    expect(selectByRule(unordered, rule, NOW).get('session-c-33333333.jsonl')).toBeUndefined();
  });

  it('across readings, selects only what every reading selects', () => {
    const thirty = retentionRule([]);
    const count = retentionRule([layer('user', { sessionRetention: { maxCount: 1 } })]);
    expect([...selectAcross(entries, [count, thirty], NOW).keys()].sort()).toEqual([
      'session-a-11111111.jsonl',
      'session-d-44444444.jsonl',
    ]);
  });
});

describe('a settings file with comments', () => {
  it('blanks comments outside strings, as strip-json-comments does', () => {
    const text = '{\n  // a comment\n  "a": "http://x/*y*/", /* block */ "b": 1\n}';
    expect(JSON.parse(withoutComments(text))).toEqual({ a: 'http://x/*y*/', b: 1 });
    expect(JSON.parse(withoutComments('{"a": "say \\"//\\" twice"}'))).toEqual({ a: 'say "//" twice' });
  });
});

describe('a running Gemini CLI', () => {
  const view = (argv: string[], vars: Record<string, string> = {}) => ({ exe: '/usr/bin/node', argv, vars });

  it('is Node running its bin or bundle, its relaunched copy, or what it started', () => {
    expect(isGeminiProcess(view(['node', '/usr/local/bin/gemini', '-p', 'hi']))).toBe(true);
    expect(
      isGeminiProcess(
        view([
          '/usr/bin/node',
          '--max-old-space-size=8192',
          '/opt/lib/node_modules/@google/gemini-cli/bundle/gemini.js',
        ]),
      ),
    ).toBe(true);
    expect(isGeminiProcess(view(['bash', '-c', 'make'], { GEMINI_CLI: '1' }))).toBe(true);
    expect(isGeminiProcess({ exe: '/usr/local/bin/gemini', argv: null, vars: null })).toBe(true);
    expect(isGeminiProcess(view(['node', '/srv/app/server.js']))).toBe(false);
    expect(isGeminiProcess(view(['node', '/usr/local/bin/qwen']))).toBe(false);
  });
});
