import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { rateWords } from '../../../src/engine/text/statsWords';
import { insightsPage } from './pages/insightsPage';
import { quickInput } from './pages/workbenchPage';
import { takeScreenshot } from './screenshot';
import { taskloom, waitFor, workspaceFolder } from './vscodeUtil';

const setTheme = (name: string | undefined) => vscode.workspace.getConfiguration('workbench').update('colorTheme', name, vscode.ConfigurationTarget.Global);

/**
 * After the session's runs: Taskloom: Show Insights draws the figures of `taskloom stats` over
 * them (the engine's runStats), readable in a dark and a light theme, and a bar opens its run.
 */
suite('Insights across the runs of the folder', function () {
  this.timeout(180_000);
  const folder = workspaceFolder();

  test("shows the runs' figures as charts, in both themes, and a click opens the run behind one, or asks which of the runs behind an agent's figure", async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('taskloom.showInsights', folder);
    await insightsPage.shown();
    await waitFor('the figures sent to the page', () => api.services.insights.sent.length > 0);
    const stats = api.services.insights.sent.at(-1)!.stats;
    assert.ok(stats.runs >= 2, `the session made several runs (${stats.runs})`);
    assert.match(await insightsPage.summary(), new RegExp(`^${stats.runs} runs: ${stats.tasks.planned} tasks planned, ${stats.tasks.merged} merged`));
    assert.deepEqual(await insightsPage.chartTitles(), [
      'Cost per merged task, run by run',
      'First-pass gate rate by agent',
      'First-pass gate and send-back rate by role',
      `Where your decisions happen (${Object.entries(stats.humanDecisions).filter(([, n]) => n > 0).map(([a, n]) => `${a} ${n}`).join(', ') || 'none'})`,
    ]);
    // One bar per run, oldest first; the agents' first-pass rates as the figures say.
    assert.equal((await insightsPage.barLabels('cost-over-time')).length, stats.perRun.length);
    const agents = Object.entries(stats.byAgent).filter(([, g]) => g.tasks > 0);
    assert.deepEqual(await insightsPage.barLabels('first-pass-by-agent'), agents.map(([name]) => name));
    assert.deepEqual(await insightsPage.barValues('first-pass-by-agent'), agents.map(([, g]) => rateWords(g.firstPassGateRate)));

    await setTheme('Default Dark Modern');
    await insightsPage.themeShown('dark');
    await takeScreenshot('insights-dark');
    await setTheme('Default Light Modern');
    await insightsPage.themeShown('light');
    await takeScreenshot('insights-light');
    await setTheme(undefined);

    const newest = stats.perRun.at(-1)!.runId;
    await insightsPage.clickRun('cost-over-time', newest);
    await waitFor(`the run view of ${newest} in front`, () => api.services.runViews.panels().some((view) => view.runId === newest && view.panel.active));

    // An agent's bar stands for all of its runs: a click asks which one to open.
    const [agent, group] = agents.find(([, g]) => g.runIds.length > 1)!;
    const oldest = group.runIds[0]!;
    await vscode.commands.executeCommand('taskloom.showInsights', folder);
    await insightsPage.clickRun('first-pass-by-agent', group.runIds.at(-1)!);
    await quickInput.saying('the runs behind this figure');
    await quickInput.rowShown(group.runIds.at(-1)!);
    await quickInput.pickRow(oldest);
    await waitFor(`the run view of ${agent}'s oldest run ${oldest} in front`, () => api.services.runViews.panels().some((view) => view.runId === oldest && view.panel.active));
  });
});
