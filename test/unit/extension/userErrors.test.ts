import { commands, window, type ShownNotification } from '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import * as vscode from 'vscode';
import { assertHumanAction } from '../../../src/engine/domain/humanActions';
import { assertAgentsInstalled } from '../../../src/engine/run/assertAgentInstalled';
import { runConfigFromSettings } from '../../../src/engine/run/runConfigFromSettings';
import { toResponseError } from '../../../src/engine/server/userError';
import { CorruptLogError } from '../../../src/engine/store/eventLog';
import { LockHeldError } from '../../../src/engine/store/lock';
import { assertTaskloomFolder } from '../../../src/engine/store/taskloomFolder';
import { showError } from '../../../src/extension/connection/userErrors';
import { keepLogIn } from '../../../src/extension/logger';
import { EDITOR_SETTING_KEYS } from '../../../src/protocol/runSettings';

const work = mkdtempSync(join(tmpdir(), 'taskloom-user-errors-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** What the engine server answers for `error`: the extension only ever sees this. */
function answered(error: unknown): unknown {
  return toResponseError(error, 'taskloom/test', () => {});
}

/** The error `body` throws, as the engine raises it. */
function thrownBy(body: () => void): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

/** Shows the error as a command's failure would, answering its notification with the item titled `choose`. */
async function show(error: unknown, choose?: string): Promise<ShownNotification> {
  window.answer = (shown) => shown.items.find((item) => (item as { title: string }).title === choose);
  await showError('apply the integration', error);
  assert.equal(window.shown.length, 1, 'one notification');
  return window.shown[0]!;
}

const titles = (shown: ShownNotification) => shown.items.map((item) => (item as { title: string }).title);

beforeEach(() => {
  window.shown.length = 0;
  window.channel.lines.length = 0;
  window.channel.shown = 0;
  commands.executed.length = 0;
});

describe('the editor words an error by its kind', () => {
  it('bad input: the message and what to do instead, as a warning with nothing to open', async () => {
    const refused = thrownBy(() => assertHumanAction({ id: 'a', state: 'SKIPPED', changedFiles: [], skippedByDependency: false }, 'accept'));
    const shown = await show(answered(refused));
    assert.equal(shown.severity, 'warning');
    assert.equal(shown.text, 'Taskloom: Task "a" (skipped) cannot be accepted now. What it allows: retry.');
    assert.deepEqual(titles(shown), [], 'no Show Output: there is nothing in the log the message does not say');
    assert.deepEqual(window.channel.lines, [{ level: 'warn', text: 'apply the integration: Task "a" (skipped) cannot be accepted now. What it allows: retry.' }]);
  });

  it('missing setup that names a setting: its hint, and Open Settings on that very setting', async () => {
    const settings = { agent: 'claude' as const, claudePath: '/nowhere/claude' };
    const config = runConfigFromSettings(settings, { baseDir: work, repoRoot: work, labels: EDITOR_SETTING_KEYS });
    const missing = thrownBy(() => assertAgentsInstalled(config, undefined, EDITOR_SETTING_KEYS));
    const shown = await show(answered(missing), 'Open Settings');
    assert.equal(shown.severity, 'error');
    assert.match(shown.text, /^Taskloom: the claude agent \(planner, actor, critic\): \/nowhere\/claude is not an executable file\. Install Claude Code .*, or set taskloom\.claude\.path to where it is\.$/);
    assert.deepEqual(titles(shown), ['Open Settings']);
    assert.deepEqual(commands.executed, [['workbench.action.openSettings', 'taskloom.claude.path']]);
  });

  it('missing setup without a setting: the path and what to do, nothing else to offer', async () => {
    const file = join(work, '.taskloom');
    writeFileSync(file, 'in the way\n');
    const shown = await show(answered(thrownBy(() => assertTaskloomFolder(file))));
    assert.equal(shown.severity, 'error');
    assert.equal(shown.text, `Taskloom: ${file} is not a folder: Taskloom keeps its runs in a folder of that name. Move or rename it, then try again; Taskloom makes the folder itself.`);
    assert.deepEqual(titles(shown), []);
  });

  it('storage: the damage and how to repair it, without Show Output', async () => {
    const shown = await show(answered(new CorruptLogError('/repo/.taskloom/runs/r1/events.jsonl', 3, 'not JSON')));
    assert.equal(shown.severity, 'error');
    assert.match(shown.text, /^Taskloom: \/repo\/\.taskloom\/runs\/r1\/events\.jsonl, line 3: not JSON\. .*Taskloom will not guess\. Repair or remove the line by hand\.$/);
    assert.deepEqual(titles(shown), []);
  });

  it('busy: who holds the workspace and what to do, with the read-only view of what it drives', async () => {
    const owner = { pid: 4242, host: 'elsewhere', command: 'taskloom run', startedAt: new Date().toISOString() };
    const shown = await show(answered(new LockHeldError('/repo/.taskloom/lock', owner)), 'View Read-Only');
    assert.equal(shown.severity, 'warning');
    assert.match(shown.text, /^Taskloom: Another Taskloom process \(pid 4242 on host "elsewhere", "taskloom run", .*\) is driving this workspace\. Wait for it to finish or stop it; .*delete \/repo\/\.taskloom\/lock\.$/);
    assert.deepEqual(titles(shown), ['View Read-Only']);
    assert.deepEqual(commands.executed, [['taskloom.refreshRuns'], ['taskloom.runs.focus']], 'listing the runs has the engine follow the other process');
  });

  it('a bug: "internal error", where its details are, Show Output; its stack goes to the log', async () => {
    keepLogIn(vscode.Uri.file('/logs/exthost/taskloom.taskloom'));
    const bug = answered(new TypeError("Cannot read properties of undefined (reading 'tasks')"));
    const shown = await show(bug, 'Show Output');
    assert.equal(shown.severity, 'error');
    assert.equal(
      shown.text,
      "Taskloom hit an internal error trying to apply the integration: Cannot read properties of undefined (reading 'tasks'). " +
        'It is a bug in Taskloom, not something you did; its details are in the Taskloom output (/logs/exthost/taskloom.taskloom/Taskloom.log).',
    );
    assert.deepEqual(titles(shown), ['Show Output']);
    assert.equal(window.channel.shown, 1);
    const [line] = window.channel.lines;
    assert.equal(line?.level, 'error');
    assert.match(line!.text, /^apply the integration failed \(internal error\): .*\n\s+at /);
  });

  it('a lost engine is no user error either: it is told as internal', async () => {
    const shown = await show(new Error('Connection got disposed.'));
    assert.match(shown.text, /^Taskloom hit an internal error trying to apply the integration: Connection got disposed\. It is a bug/);
    assert.deepEqual(titles(shown), ['Show Output']);
  });

  it('a cancelled request is not an error: nothing is shown or logged', async () => {
    await showError('apply the integration', new vscode.CancellationError());
    assert.deepEqual(window.shown, []);
    assert.deepEqual(window.channel.lines, []);
  });
});
