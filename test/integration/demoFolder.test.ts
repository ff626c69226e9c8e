import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { prepareDemo } from '../../src/engine/server/demoRequests';

const runGit = (dir: string, args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const work = mkdtempSync(join(tmpdir(), 'taskloom-demo-folder-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** What Run the Demo asks of the engine: the demo's folder, made in a new one, found in a demo's, refused elsewhere. */
describe('the demo’s folder (prepareDemo)', () => {
  it('makes the demo in an empty folder, and finds it there the next time without touching it', async () => {
    const dir = join(work, 'fresh');
    const made = await prepareDemo({ folder: dir, delayMs: 0 });
    assert.equal(made.made, true);
    assert.ok(existsSync(made.planFile), 'the plan is there to start from');
    assert.equal(made.settings.agent, 'scripted');
    assert.ok(made.settings.scriptedScenario && existsSync(made.settings.scriptedScenario), 'its scenario too');
    assert.equal(runGit(dir, ['log', '--format=%s', '-1', 'main']), 'textkit: first commit');
    assert.equal(runGit(dir, ['status', '--porcelain', '--untracked-files=no']), '', 'the project is committed');

    const again = await prepareDemo({ folder: dir });
    assert.deepEqual(again, { ...made, made: false });
    assert.equal(runGit(dir, ['rev-list', '--count', 'main']), '1', 'nothing made twice');
  });

  it('refuses a folder that holds something else', async () => {
    const dir = join(work, 'project');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    await assert.rejects(prepareDemo({ folder: dir }), (error: Error & { kind?: string }) => error.kind === 'bad_input' && /is not empty/.test(error.message));
  });
});
