import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RUNNING_STEP_STATES } from '../../../src/engine/domain/stateWords';
import type { TaskState } from '../../../src/engine/domain/taskStates';
import { SUITE_GOAL } from '../fixtures/scenario';
import { runView } from './pages/runViewPage';
import { Notification, workbench } from './pages/workbenchPage';
import { reloadWindow, testPhase } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { answeringConfirmations, newestRun, settled, taskloom, taskStates, waitFor, workspaceFolder } from './vscodeUtil';

const RESUME_TOAST = new Notification('stopped with');
const AGENT_STEP_STATES: ReadonlySet<TaskState> = new Set<TaskState>(['BUILDING', 'CRITIC_REVIEWING']);

/**
 * Empties this session's record of the runs created here (the session has a state folder of its
 * own, see sessions.mjs): every run in the workspace is then one Taskloom did not start.
 */
function forgetCreatedRuns(): void {
  const stateDir = process.env.TASKLOOM_STATE_DIR;
  assert.ok(stateDir && stateDir.includes('taskloom-resume-session-state'), `the session's own state folder (${stateDir})`);
  writeFileSync(join(stateDir, 'created-runs.jsonl'), '');
}

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
        return entry?.summary.active && entry.summary.merged >= 1 && entry.summary.merged < 4 ? entry : undefined;
      });
      await reloadWindow();
    });
    return;
  }

  test('the Resume notification says where the run stopped, and Resume finishes it', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    await RESUME_TOAST.shown(60_000);
    assert.match(await RESUME_TOAST.message(), /Taskloom run '.+' stopped with \d of 5 tasks merged/);
    const api = await taskloom();
    const runId = newestRun(api, folder)!.summary.runId;
    await api.services.controller.state(folder, runId);
    const reloaded = api.services.controller.model.run(folder, runId)!;
    // What the reload interrupted reads as interrupted, and what waits on it as pending: nothing
    // is shown cancelled or skipped that the Resume below then runs.
    const atReload = taskStates(reloaded);
    assert.ok(!Object.values(atReload).some((s) => s === 'CANCELLED' || s === 'SKIPPED'), `nothing cancelled or skipped: ${JSON.stringify(atReload)}`);
    const descriptions = await workbench.treeRowDescriptions();
    assert.ok(!descriptions.some((d) => /^(cancelled|skipped)\b/.test(d)), `tree rows: ${descriptions.join(' | ')}`);
    await takeScreenshot('resume-notification');
    await RESUME_TOAST.press('Resume');
    await waitFor('the run to be driven again', () => api.services.controller.model.run(folder, runId)?.summary.active);
    // Killed while an agent works (a scripted turn takes 1.2 s here), not in the gap between one
    // task's merge and the next task's start, where no step is under way.
    const greenBefore = await waitFor('one more green task, and an agent at work on the next', () => {
      const entry = api.services.controller.model.run(folder, runId)!;
      const agentAtWork = entry.state?.taskOrder.some((id) => AGENT_STEP_STATES.has(entry.state!.tasks[id]!.state));
      return entry.summary.active && agentAtWork && entry.summary.merged >= 2 && entry.summary.merged < 4 && entry.summary.merged;
    });

    // The engine process dies mid-run: the client restarts it, says so, and the run resumes with nothing lost.
    const [enginePid] = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'engine-server.js'], { encoding: 'utf8' }).trim().split('\n');
    assert.ok(enginePid, 'the engine server runs as a child of the extension host');
    process.kill(Number(enginePid), 'SIGKILL');
    await new Notification('engine stopped unexpectedly').shown(60_000);
    await takeScreenshot('engine-restarted');
    // The dead engine may have logged events it never sent: the editor shows the run as its log has it.
    const logged = () => readFileSync(join(folder, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8').trim().split('\n').length;
    const { runsTree } = api.services;
    const runNode = (await runsTree.getChildren()).find((n) => n.kind === 'run' && n.runId === runId)!;
    const rows = await waitFor('the restarted engine to show the run stopped where the log ends', async () => {
      const tasks = await runsTree.getChildren(runNode);
      const entry = api.services.controller.model.run(folder, runId);
      return entry && !entry.summary.active && entry.summary.merged >= greenBefore && entry.state?.lastSeq === logged() && tasks;
    });
    const stoppedEntry = api.services.controller.model.run(folder, runId)!;
    const stopped = stoppedEntry.state!;
    const inFlight = stopped.taskOrder.filter((id) => RUNNING_STEP_STATES.has(stopped.tasks[id]!.state));
    assert.ok(inFlight.length > 0, `a step was under way when the engine died: ${JSON.stringify(taskStates(stoppedEntry))}`);
    // Nothing spins that is not running: a step the dead engine ran is interrupted, in words and icon.
    for (const row of rows.filter((n) => n.kind === 'task').map((n) => runsTree.getTreeItem(n))) {
      const taskId = String(row.label).split(':')[0]!;
      const icon = (row.iconPath as vscode.ThemeIcon).id;
      assert.notEqual(icon, 'loading~spin', `${taskId} does not spin`);
      if (RUNNING_STEP_STATES.has(stopped.tasks[taskId]!.state)) {
        assert.equal(icon, 'debug-disconnect', `${taskId} looks interrupted`);
        assert.match(String(row.description), /, interrupted/, `${taskId} says it was interrupted`);
      }
    }
    // Needs You rebuilds on the model's change event, which is throttled: the row follows the tree, not with it.
    await waitFor('the stopped run to wait in Needs You, to resume', () =>
      api.services.needsYou.getChildren().some((item) => item.kind === 'stopped' && item.runId === runId),
    );
    await takeScreenshot('engine-gone-interrupted');
    // The run view says the same: the run is stopped mid-step, not "running" with a growing bar.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await runView.statusShown('stopped', 30_000);
    assert.match((await runView.runNotes()).join(' '), /Nothing is running this run now/);
    const boxStates = await runView.graphStates();
    assert.equal(boxStates.filter((text) => text.includes('interrupted')).length, inFlight.length, `graph: ${boxStates.join(' | ')}`);
    await takeScreenshot('engine-gone-run-view');

    // Without the record that it was started here (as for a .taskloom/ that came with the
    // repository), Resume first shows what the run would execute, and a No leaves it stopped.
    forgetCreatedRuns();
    const declined = await answeringConfirmations(api, undefined, () => vscode.commands.executeCommand('taskloom.resumeLastRun', { folder, runId }));
    assert.equal(declined.length, 1, `Resume asked once: ${declined.join(' | ')}`);
    assert.match(declined[0]!, /was not started by Taskloom on this machine/);
    assert.match(declined[0]!, /gate command: .*\n(.|\n)*unfinished tasks: \d/);
    assert.equal(api.services.controller.model.run(folder, runId)!.summary.active, false, 'declined: the run stays stopped');
    const agreed = await answeringConfirmations(api, 'Resume Anyway', () => vscode.commands.executeCommand('taskloom.resumeLastRun', { folder, runId }));
    assert.equal(agreed.length, 1, 'Resume Anyway was asked, and agreed to');
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
