import { describe, expect, it } from 'vitest';
import { belongsToSlug, homeSlug, sessionName, slug } from '../../../src/providers/watchfire/slug.js';

describe('slug', () => {
  it('lowercases and turns spaces and underscores into dashes', () => {
    expect(slug('My Project')).toBe('my-project');
    expect(slug('snake_case_Name')).toBe('snake-case-name');
    expect(slug('Release 2.0')).toBe('release-20');
  });

  it('drops every character outside a-z, 0-9 and dash, without collapsing dashes', () => {
    expect(slug('a  b')).toBe('a--b');
    expect(slug('a - b')).toBe('a---b');
    expect(slug('x.y/z\\w:v')).toBe('xyzwv');
    expect(slug('tab\there')).toBe('tabhere');
  });

  it('keeps leading dashes and trims only trailing ones', () => {
    expect(slug('_hidden')).toBe('-hidden');
    expect(slug('--x--')).toBe('--x');
    expect(slug('project _ -')).toBe('project');
  });

  it('drops non-ASCII letters after lowercasing them', () => {
    expect(slug('Café Über')).toBe('caf-ber');
    expect(slug('日本語プロジェクト')).toBe('');
    expect(slug('🚀 Launch')).toBe('-launch');
    // U+0130 lowercases to "i" plus a combining dot; the dot is dropped.
    expect(slug('İstanbul')).toBe('istanbul');
    // The Kelvin sign lowercases to an ASCII k.
    expect(slug('\u212Aelvin')).toBe('kelvin');
  });

  it('gives the empty slug for an all-symbol name', () => {
    expect(slug('!!!@@@###')).toBe('');
    expect(slug('')).toBe('');
    expect(slug('___')).toBe('');
  });

  it('cuts to 30 bytes, then trims the dashes the cut left at the end', () => {
    expect(slug('a'.repeat(40))).toBe('a'.repeat(30));
    expect(slug('abcdefghijklmnopqrstuvwxyz abcdef')).toBe('abcdefghijklmnopqrstuvwxyz-abc');
    expect(slug(`${'a'.repeat(29)} b`)).toBe('a'.repeat(29));
    expect(slug(`${'a'.repeat(27)}   bcd`)).toBe('a'.repeat(27));
    // Characters dropped before the cut do not count toward the 30 bytes.
    expect(slug(`${'é'.repeat(20)}${'b'.repeat(35)}`)).toBe('b'.repeat(30));
  });

  it('makes two long names sharing 30 slug bytes collide', () => {
    expect(slug('Acme Platform Services Backend Team')).toBe('acme-platform-services-backend');
    expect(slug('Acme Platform Services Backend Tools')).toBe('acme-platform-services-backend');
  });
});

describe('sessionName', () => {
  it('joins the project slug and the mode', () => {
    expect(sessionName({ projectName: 'My App', mode: 'chat' })).toBe('my-app:chat');
    expect(sessionName({ projectName: 'My App', mode: 'wildfire-refine' })).toBe('my-app:wildfire-refine');
  });

  it('adds the zero-padded task number and the task title slug for tasks', () => {
    expect(sessionName({ projectName: 'My App', mode: 'task', task: { number: 7, title: 'Fix the login bug' } })).toBe(
      'my-app:task:#0007-fix-the-login-bug',
    );
    expect(sessionName({ projectName: 'My App', mode: 'task', task: { number: 12345, title: 'x' } })).toBe(
      'my-app:task:#12345-x',
    );
  });

  it('trims the trailing dash left by an empty task title slug', () => {
    expect(sessionName({ projectName: 'x', mode: 'task', task: { number: 3, title: '???' } })).toBe('x:task:#0003');
  });

  it('cuts the whole name to 80 bytes and trims trailing dashes and colons', () => {
    const name = sessionName({
      projectName: 'p'.repeat(30),
      mode: 'wildfire-execute',
      task: { number: 1, title: `${'t'.repeat(25)} uvwxyz` },
    });
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(80);
    expect(name).toBe(`${'p'.repeat(30)}:wildfire-execute:#0001-${'t'.repeat(25)}`);
    const cutAtDash = sessionName({
      projectName: 'p'.repeat(30),
      mode: 'wildfire-execute',
      task: { number: 1, title: `${'t'.repeat(26)} u` },
    });
    expect(cutAtDash).toBe(`${'p'.repeat(30)}:wildfire-execute:#0001-${'t'.repeat(26)}`);
  });

  it('makes slashes, backslashes and spaces underscores', () => {
    expect(sessionName({ projectName: 'a', mode: 'odd mode/with\\parts' })).toBe('a:odd_mode_with_parts');
  });

  it('gives an all-symbol project the empty slug prefix', () => {
    expect(sessionName({ projectName: '***', mode: 'chat' })).toBe(':chat');
  });
});

describe('homeSlug and belongsToSlug', () => {
  it('reads the slug before the first colon', () => {
    expect(homeSlug('my-app:chat')).toBe('my-app');
    expect(homeSlug('my-app:task:#0001-fix')).toBe('my-app');
    expect(homeSlug(':chat')).toBe('');
  });

  it('refuses names that no slug could start', () => {
    expect(homeSlug('no-colon-here')).toBeNull();
    expect(homeSlug('Upper:chat')).toBeNull();
    expect(homeSlug('trailing-:chat')).toBeNull();
    expect(homeSlug(`${'a'.repeat(31)}:chat`)).toBeNull();
    expect(homeSlug('.hidden:chat')).toBeNull();
  });

  it('matches by the whole slug and its colon, never by a shorter prefix', () => {
    expect(belongsToSlug('foo:chat', 'foo')).toBe(true);
    expect(belongsToSlug('foo-bar:chat', 'foo')).toBe(false);
    expect(belongsToSlug(':chat', '')).toBe(true);
    expect(belongsToSlug('foo:chat', '')).toBe(false);
  });
});
