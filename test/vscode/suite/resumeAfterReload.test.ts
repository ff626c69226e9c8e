import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { RUNNING_STEP_STATES } from '../../../src/engine/domain/stateWords';
import { SUITE_GOAL } from '../fixtures/scenario';
import { click, readTexts, reloadWindow, testPhase, waitFor as waitForPage, WEBVIEW_FRAMES } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { newestRun, settled, taskloom, taskStates, waitFor, workspaceFolder } from './vscodeUtil';

const RESUME_TOAST = '.notification-list-item:has-text("stopped at")';

/**
 * Reload the window in the middle of a run (the extension host and its engine die with it):
 * the new window says where the run stopped, and its Resume button finishes the run.
 */
suite('Resume after a window reload', function () {
  this.timeout(240_000);
  const folder = workspaceFolder();

  if (testPhase() === 1) {
    test('a run is under way when the window reloads', async () => {
      const api = await taskloom();
      await vscode.commands.executeCommand('workbench.view.extension.taskloom');
      void vscode.commands.executeCommand('taskloom.startGoal', { folder, goal: SUITE_GOAL });
      await waitFor('a first green task while the run goes on', () => {
        const entry = newestRun(api, folder);
        return entry?.summary.active && entry.summary.done >= 1 && entry.summary.done < 4 ? entry : undefined;
      });
      await reloadWindow();
    });
    return;
  }

  test('the Resume notification says where the run stopped, and Resume finishes it', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    await waitForPage({ selector: RESUME_TOAST, timeoutMs: 60_000 });
    const [message] = await readTexts({ selector: `${RESUME_TOAST} .notification-list-item-message` });
    assert.match(message ?? '', /Taskloom run '.+' stopped at \d of 5 tasks/);
    await takeScreenshot('resume-notification');
    await click({ selector: `${RESUME_TOAST} a.monaco-button:has-text("Resume")` });
    const api = await taskloom();
    const runId = newestRun(api, folder)!.summary.runId;
    await waitFor('the run to be driven again', () => api.services.controller.model.run(folder, runId)?.summary.active);
    const greenBefore = await waitFor('one more green task', () => {
      const entry = api.services.controller.model.run(folder, runId)!;
      return entry.summary.done >= 2 && entry.summary.done < 4 && entry.summary.done;
    });

    // The engine process dies mid-run: the client restarts it, says so, and the run resumes with nothing lost.
    const [enginePid] = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'engine-server.js'], { encoding: 'utf8' }).trim().split('\n');
    assert.ok(enginePid, 'the engine server runs as a child of the extension host');
    process.kill(Number(enginePid), 'SIGKILL');
    await waitForPage({ selector: '.notification-list-item:has-text("engine stopped unexpectedly")', timeoutMs: 60_000 });
    await takeScreenshot('engine-restarted');
    await waitFor('the restarted engine to show the run stopped', () => {
      const entry = api.services.controller.model.run(folder, runId);
      return entry && !entry.summary.active && entry.summary.done >= greenBefore;
    });
    // Nothing spins that is not running: a step the dead engine ran is interrupted, in words and icon.
    const { runsTree } = api.services;
    const runNode = (await runsTree.getChildren()).find((n) => n.kind === 'run' && n.runId === runId)!;
    const rows = (await runsTree.getChildren(runNode)).filter((n) => n.kind === 'task').map((n) => runsTree.getTreeItem(n));
    const stopped = api.services.controller.model.run(folder, runId)!.state!;
    for (const row of rows) {
      const taskId = String(row.label).split(':')[0]!;
      const icon = (row.iconPath as vscode.ThemeIcon).id;
      assert.notEqual(icon, 'loading~spin', `${taskId} does not spin`);
      if (RUNNING_STEP_STATES.has(stopped.tasks[taskId]!.state)) {
        assert.equal(icon, 'debug-disconnect', `${taskId} looks interrupted`);
        assert.match(String(row.description), /, interrupted/, `${taskId} says it was interrupted`);
      }
    }
    const needsYou = api.services.needsYou.getChildren();
    assert.ok(needsYou.some((item) => item.kind === 'stopped' && item.runId === runId), 'the stopped run waits in Needs You, to resume');
    await takeScreenshot('engine-gone-interrupted');
    // The run view says the same: the run is stopped mid-step, not "running" with a growing bar.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await waitForPage({ selector: '.status-pill:has-text("stopped, interrupted")', frames: WEBVIEW_FRAMES, timeoutMs: 30_000 });
    const inFlight = stopped.taskOrder.filter((id) => RUNNING_STEP_STATES.has(stopped.tasks[id]!.state));
    const boxStates = await readTexts({ selector: 'svg.graph .node-state', frames: WEBVIEW_FRAMES });
    assert.equal(boxStates.filter((text) => text.includes('interrupted')).length, inFlight.length, `graph: ${boxStates.join(' | ')}`);
    await takeScreenshot('engine-gone-run-view');
    await vscode.commands.executeCommand('taskloom.resumeLastRun', { folder, runId });
    const entry = await settled(api, folder, runId);
    assert.deepEqual(taskStates(entry), {
      slugify: 'MERGED',
      'word-count': 'MERGED',
      'title-case': 'MERGED',
      summary: 'MERGED',
      flaky: 'NEEDS_HUMAN',
    });
    const resumes = entry.state!.decisions.filter((d) => d.kind === 'run' && d.fact.type === 'run_resumed');
    assert.ok(resumes.length >= 2, `the ledger records both resumes (${resumes.length})`);
    await takeScreenshot('resumed-tree');
  });
});
