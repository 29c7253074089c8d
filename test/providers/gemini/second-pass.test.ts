import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemAt } from '../../helpers/pass.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { geminiScene, project, runGemini, scratch, settle, shadowRepo, writeRegistry } from './fixtures.js';

// minAge as it is used (1h, not the 0s of the rule's tests): the pass's own unlink of git's
// temporary file moves the mtime of objects/pack, which is no write of Gemini CLI's.

describe('gemini: the pass after the one that deleted a shadow repository’s garbage', () => {
  it('reports the repository kept, not refused too-recent; a file the tool writes still makes it too-recent', async () => {
    const s = geminiScene();
    const app = project(s, 'app');
    writeRegistry(s.gemini, { [app]: 'app' });
    const repo = shadowRepo(s.gemini, 'gemini', 'app', app);
    scratch(s.gemini, 'app', app);
    const killed = await killGitMidPack({ gitDir: path.join(repo, '.git'), workTree: app });
    settle(s);
    const pack = path.dirname(killed.tmpPack);

    const first = await runGemini(s, { minAge: '1h' });
    expect(itemAt(first.report, killed.tmpPack)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expect(itemAt(first.report, repo)).toMatchObject({ verdict: 'kept', reason: 'project-history' });
    // The unlink made objects/pack as new as the pass.
    expect(Date.now() - statSync(pack).mtimeMs).toBeLessThan(60_000);

    const second = await runGemini(s, { minAge: '1h' });
    expect(itemAt(second.report, repo)).toMatchObject({ verdict: 'kept', reason: 'project-history' });
    expect(second.report.totals).toMatchObject({ deleted: 0, refused: 0 });

    // A checkpoint the tool takes writes files: signs of life come first, as before.
    const loose = path.join(repo, '.git', 'objects', 'ab');
    mkdirSync(loose, { recursive: true });
    writeFileSync(path.join(loose, 'cdef0123456789abcdef0123456789abcdef01'), 'x');
    const third = await runGemini(s, { minAge: '1h' });
    expect(itemAt(third.report, repo)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });

    // An old file in a recently changed folder alone is not: it is the folders' mtime that is set aside.
    const old = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(path.join(loose, 'cdef0123456789abcdef0123456789abcdef01'), old, old);
    const fourth = await runGemini(s, { minAge: '1h' });
    expect(itemAt(fourth.report, repo)).toMatchObject({ verdict: 'kept', reason: 'project-history' });
  }, 120_000);
});
