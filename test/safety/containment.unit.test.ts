import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectPath, isInside, isStrictlyInside } from '../../src/safety/containment.js';

describe('path containment', () => {
  it('counts a path as inside its parent by path arithmetic, not by prefix', () => {
    expect(isInside('/home/ana', '/home/ana')).toBe(true);
    expect(isInside('/home/ana', '/home/ana/x/y')).toBe(true);
    expect(isInside('/home/ana', '/home/anabel')).toBe(false);
    expect(isInside('/home/ana', '/home/ana-old/x')).toBe(false);
    expect(isInside('/home/ana', '/home')).toBe(false);
    expect(isInside('/home/ana', '/etc')).toBe(false);
  });

  it('resolves dot segments before judging', () => {
    expect(isInside('/home/ana', '/home/ana/x/../../bob')).toBe(false);
    expect(isInside('/home/ana/', '/home/ana/./x')).toBe(true);
  });

  it('counts a name that merely starts with two dots as inside', () => {
    expect(isInside('/home/ana', '/home/ana/..hidden')).toBe(true);
  });

  it('tells strictly inside from the folder itself', () => {
    expect(isStrictlyInside('/home/ana', '/home/ana')).toBe(false);
    expect(isStrictlyInside('/home/ana', '/home/ana/x')).toBe(true);
    expect(isStrictlyInside('/home/ana', '/home/anabel')).toBe(false);
  });
});

describe('inspectPath on a real tree', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'aj-containment-'));
  const outside = mkdtempSync(path.join(os.tmpdir(), 'aj-containment-outside-'));
  mkdirSync(path.join(root, 'homes', 'one'), { recursive: true });
  mkdirSync(path.join(outside, 'victim'));
  symlinkSync(outside, path.join(root, 'link'));
  symlinkSync(path.join(outside, 'victim'), path.join(root, 'homes', 'alias'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('accepts a real folder below its root, on the parent’s filesystem, with its identity', () => {
    const facts = inspectPath(root, path.join(root, 'homes', 'one'));
    expect(facts).toMatchObject({
      exists: true,
      isRealDirectory: true,
      contained: true,
      symlinkInPath: false,
      sameFilesystemAsParent: true,
    });
    expect(facts.ino).toBeGreaterThan(0);
  });

  it('flags a link in a component between the root and the target', () => {
    const facts = inspectPath(root, path.join(root, 'link', 'victim'));
    expect(facts.exists).toBe(true);
    expect(facts.symlinkInPath).toBe(true);
    expect(facts.contained).toBe(false);
  });

  it('does not take a link itself for a folder', () => {
    const facts = inspectPath(root, path.join(root, 'homes', 'alias'));
    expect(facts.exists).toBe(true);
    expect(facts.isRealDirectory).toBe(false);
  });

  it('never calls the root itself, or a path outside it, contained', () => {
    expect(inspectPath(root, root).contained).toBe(false);
    expect(inspectPath(root, path.join(outside, 'victim')).contained).toBe(false);
    expect(inspectPath(path.join(root, 'homes'), path.join(root, 'homes', '..', 'link')).contained).toBe(false);
  });

  it('answers exists: false for a path that is not there', () => {
    expect(inspectPath(root, path.join(root, 'homes', 'gone'))).toMatchObject({ exists: false, contained: false });
  });
});
