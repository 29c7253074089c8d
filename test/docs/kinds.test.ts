import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** The members of `ItemKind` in src/model/types.ts, read with the TypeScript parser. */
function codeKinds(): string[] {
  const file = new URL('../../src/model/types.ts', import.meta.url);
  const source = ts.createSourceFile(file.pathname, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const alias = source.statements.find(
    (statement): statement is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(statement) && statement.name.text === 'ItemKind',
  );
  if (!alias || !ts.isUnionTypeNode(alias.type)) throw new Error('src/model/types.ts has no union type ItemKind');
  return alias.type.types.map((member) => {
    if (!ts.isLiteralTypeNode(member) || !ts.isStringLiteral(member.literal))
      throw new Error(`ItemKind has a member that is not a string literal: ${member.getText(source)}`);
    return member.literal.text;
  });
}

/** The kinds the README's report section lists: the code spans of its "`kind` is one of" item. */
function readmeKinds(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n- `kind` is one of ');
  expect(start, 'the README lists the kinds').toBeGreaterThan(0);
  const item = readme.slice(start + 1, readme.indexOf('\n- ', start + 1));
  // A kind is the code span that opens the list or follows a comma; spans inside parentheses are not kinds.
  const outside = item.replace(/\([^()]*\)/g, '');
  return [...outside.matchAll(/(?:one of\s+|,\s+)`([a-z-]+)`/g)].map((match) => match[1] as string);
}

describe('the kinds of item', () => {
  it('the README lists exactly the kinds of the code (ItemKind)', () => {
    const kinds = codeKinds();
    expect(kinds.length).toBeGreaterThanOrEqual(10);
    expect([...readmeKinds()].sort()).toEqual([...kinds].sort());
  });
});
