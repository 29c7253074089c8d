import { PROVIDER_NAMES } from '../../src/providers/registry.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, githubSlug, linksOf, type Lookup } from './markdown.js';

const TOP = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** A matcher for the checkout's .gitignore: what git does not track is not documentation. */
function ignoredBy(gitignore: string): (relative: string, isDir: boolean) => boolean {
  const rules = gitignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      if (line.startsWith('!')) throw new Error(`.gitignore: ${line}: negated patterns are not read here`);
      const dirOnly = line.endsWith('/');
      const pattern = line.replace(/\/$/, '').replace(/^\//, '');
      const glob = pattern
        .split('')
        .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return { dirOnly, anchored: line.replace(/\/$/, '').includes('/'), regex: new RegExp(`^${glob}$`) };
    });
  return (relative, isDir) =>
    rules.some(
      (rule) => (isDir || !rule.dirOnly) && rule.regex.test(rule.anchored ? relative : path.posix.basename(relative)),
    );
}

/** Every Markdown file of the checkout that git would track, relative to its top. */
function markdownFiles(): string[] {
  const ignored = ignoredBy(readFileSync(path.join(TOP, '.gitignore'), 'utf8'));
  const found: string[] = [];
  const visit = (relative: string) => {
    for (const entry of readdirSync(path.join(TOP, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.name === '.git' || ignored(child, entry.isDirectory())) continue;
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile() && entry.name.endsWith('.md')) found.push(child);
    }
  };
  visit('');
  return found.sort();
}

const lookup: Lookup = (relative) => {
  const full = path.join(TOP, relative);
  if (!existsSync(full)) return null;
  return statSync(full).isFile() && full.endsWith('.md') ? { markdown: readFileSync(full, 'utf8') } : 'other';
};

describe('the links of the Markdown files', () => {
  const files = markdownFiles();

  it('finds the documentation it is to check', () => {
    for (const page of ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'docs/README.md', 'docs/reasons.md'])
      expect(files).toContain(page);
    for (const provider of PROVIDER_NAMES) expect(files).toContain(`src/providers/${provider}/README.md`);
    expect(files.some((file) => file.startsWith('node_modules/') || file.startsWith('dist/'))).toBe(false);
  });

  it('resolve: every relative link names a file or folder, every #anchor a heading', () => {
    const broken = files.flatMap((file) => brokenLinks(file, readFileSync(path.join(TOP, file), 'utf8'), lookup));
    expect(broken.map((b) => `${b.file}:${b.line}: ${b.target}: ${b.problem}`)).toEqual([]);
  });

  it('every provider page is linked from docs/README.md', () => {
    const targets = linksOf(readFileSync(path.join(TOP, 'docs/README.md'), 'utf8')).map((link) => link.target);
    for (const provider of PROVIDER_NAMES) expect(targets).toContain(`../src/providers/${provider}/README.md`);
  });
});

describe('the link check itself', () => {
  it("makes anchors by GitHub's rules", () => {
    expect(githubSlug('Watchfire (`watchfire`): per-session agent homes')).toBe(
      'watchfire-watchfire-per-session-agent-homes',
    );
    expect(githubSlug('Who it runs as, what it can delete, and why')).toBe('who-it-runs-as-what-it-can-delete-and-why');
    expect(githubSlug('2026-12-02 (later): the fixed cost of every pass')).toBe(
      '2026-12-02-later-the-fixed-cost-of-every-pass',
    );
    expect(githubSlug("Other agent tools' worktrees (`worktrees`)")).toBe('other-agent-tools-worktrees-worktrees');
    expect(githubSlug('Links in [a heading](x.md) and **bold**')).toBe('links-in-a-heading-and-bold');
    expect(githubSlug('snake_case stays, café too')).toBe('snake_case-stays-café-too');
    expect([...anchorsOf('# Notes\n\n## Notes\n\n```\n# not a heading\n```\n\n<a id="here"></a>\n')]).toEqual([
      'notes',
      'notes-1',
      'here',
    ]);
  });

  it('reports a missing file, a missing anchor and a link out of the repository; ignores code and URLs', () => {
    const pages: Record<string, string> = {
      'docs/a.md': '# A\n\n## Part two\n',
      'src/x.ts': '',
    };
    const fake: Lookup = (relative) => {
      if (relative === 'docs' || relative === 'src') return 'other';
      const text = pages[relative];
      if (text === undefined) return null;
      return relative.endsWith('.md') ? { markdown: text } : 'other';
    };
    const text = [
      '# Top',
      'Good: [a](a.md), [part](a.md#part-two), [self](#top), [folder](../src/), [line](../src/x.ts#L3),',
      '[web](https://example.com/x#y), `[code](nowhere.md)`.',
      '```',
      '[fenced](nowhere.md)',
      '```',
      'Bad: [gone](gone.md), [anchor](a.md#part-three), [self](#bottom), [out](../../etc/passwd),',
      '[ts anchor](../src/x.ts#top)',
      '[ref]: missing/ref.md',
    ].join('\n');
    expect(brokenLinks('docs/b.md', text, fake).map((b) => `${b.line} ${b.target}: ${b.problem}`)).toEqual([
      '7 gone.md: no file or folder docs/gone.md',
      '7 a.md#part-three: no heading of docs/a.md makes #part-three',
      '7 #bottom: no heading of docs/b.md makes #bottom',
      '7 ../../etc/passwd: points outside the repository',
      '8 ../src/x.ts#top: #top on a file that is not Markdown',
      '9 missing/ref.md: no file or folder docs/missing/ref.md',
    ]);
  });
});
