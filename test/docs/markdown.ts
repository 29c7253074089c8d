import path from 'node:path';

/** One link of a Markdown file: where it points, and the line it is on (1-based). */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** One link that does not resolve, and why. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  problem: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// A code span: a run of backticks, then anything up to the same run again.
const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;
const INLINE_LINK = /\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const HTML_ANCHOR = /<a\s[^>]*?(?:id|name)="([^"]+)"/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The lines of a Markdown file outside fenced code blocks, each with its 1-based number. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, index) => {
    const opening = FENCE.exec(line);
    if (fence !== null) {
      if (opening && (opening[1] as string)[0] === fence[0] && (opening[1] as string).length >= fence.length)
        fence = null;
      return;
    }
    if (opening) {
      fence = opening[1] as string;
      return;
    }
    out.push({ line: index + 1, text: line });
  });
  return out;
}

/** GitHub's anchor for a heading's text: lowercased, punctuation dropped, spaces made hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*)/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file has: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = HEADING.exec(line);
    if (heading) {
      const slug = githubSlug(heading[2] as string);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(HTML_ANCHOR)) anchors.add(match[1] as string);
  }
  return anchors;
}

/** Every link of a Markdown file outside code: inline links and images, and reference definitions. */
export function linksOf(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = raw.replace(CODE_SPAN, '');
    const definition = REFERENCE_DEFINITION.exec(prose);
    if (definition) links.push({ line, target: definition[1] as string });
    for (const match of prose.matchAll(INLINE_LINK)) links.push({ line, target: match[1] as string });
  }
  return links.map(({ line, target }) => ({ line, target: target.replace(/^<(.*)>$/, '$1') }));
}

/** A file of the checkout as the check sees it: Markdown text, or another file or folder. */
export type Lookup = (relative: string) => { markdown: string } | 'other' | null;

/**
 * The links of `file` (relative to the checkout) that do not resolve: a relative target that is no
 * file or folder of the checkout, or an `#anchor` that no heading of its Markdown file makes.
 * Links with a scheme (`https:`, `mailto:`) are left to the web.
 */
export function brokenLinks(file: string, text: string, lookup: Lookup): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const { line, target } of linksOf(text)) {
    if (SCHEME.test(target) || target.startsWith('//')) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved =
      pathPart === ''
        ? file
        : path.posix.normalize(
            pathPart.startsWith('/') ? pathPart.slice(1) : path.posix.join(path.posix.dirname(file), pathPart),
          );
    const report = (problem: string) => broken.push({ file, line, target, problem });
    if (resolved === '..' || resolved.startsWith('../')) {
      report('points outside the repository');
      continue;
    }
    const found = pathPart === '' ? { markdown: text } : lookup(resolved.replace(/\/$/, '') || '.');
    if (found === null) {
      report(`no file or folder ${resolved}`);
      continue;
    }
    if (anchor === null || anchor === '') continue;
    if (found === 'other') {
      if (!/^L\d+(-L\d+)?$/.test(anchor)) report(`#${anchor} on a file that is not Markdown`);
      continue;
    }
    if (!anchorsOf(found.markdown).has(anchor)) report(`no heading of ${resolved} makes #${anchor}`);
  }
  return broken;
}
