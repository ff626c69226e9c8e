import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EventStream } from '../../../bench/events';
import type { RunsNode } from '../../../src/extension/tree/runsTreeProvider';
import { BENCH_RUNS } from '../fixtures/benchRuns';
import { taskloom, waitFor, workspaceFolder } from './vscodeUtil';

/** Figures for `npm run bench` (bench/extensionBench.ts reads the JSON this writes). */
export interface ExtensionBenchResult {
  activationMs: number;
  /** Registering as many commands and making an output channel, nothing else: the floor of any activation. */
  activationBaselineMs: number;
  /** Per pace of arrival: a steady stream (a busy real run) and a burst (replaying a backlog). */
  streams: Array<{ events: number; intervalMs: number; latencyMs: { p50: number; p95: number; max: number }; treeItemsPerEvent: number }>;
  fullRefreshes: number;
  /** One full refresh of the same tree (what a refresh per event would cost each time). */
  fullRefreshMs: number;
  fullRefreshItems: number;
  firstPaintMs: { big: number; small: number };
  bigRun: { tasks: number; events: number };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

suite('Extension benchmark', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  const big = BENCH_RUNS.big;

  test('activation, tree update latency and run view first paint on 500 tasks / 50,000 events', async () => {
    const api = await taskloom();
    const activationBaselineMs = baselineActivation();
    const { runsTree, runsView, controller } = api.services;
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    await waitFor('both recorded runs listed', () => controller.model.runs(folder).length === 2);
    const runNode = runsTree.runNode(folder, big.runId);
    await runsView.reveal(runNode, { expand: true, focus: false, select: false });
    await waitFor('the big run loaded', () => controller.model.run(folder, big.runId)?.state?.lastSeq === big.recordedEvents, 120_000);
    await pause(1000);

      let fullRefreshes = 0;
    const getTreeItem = runsTree.getTreeItem.bind(runsTree);
    const getChildren = runsTree.getChildren.bind(runsTree);
    runsTree.getChildren = (node?: RunsNode) => {
      if (!node) fullRefreshes += 1;
      return getChildren(node);
    };
    try {
      const stream = new EventStream(big.runId, big.tasks);
      for (let i = 0; i < big.recordedEvents; i++) stream.next();
      const pending: Array<{ nodeId: string; at: number }> = [];
      let latencies: number[] = [];
      let treeItemCalls = 0;
      runsTree.getTreeItem = (node: RunsNode) => {
        treeItemCalls += 1;
        const now = performance.now();
        for (let i = pending.length - 1; i >= 0; i--) {
          if (pending[i]!.nodeId === node.id) {
            latencies.push(now - pending[i]!.at);
            pending.splice(i, 1);
          }
        }
        return getTreeItem(node);
      };
      const streams: ExtensionBenchResult['streams'] = [];
      for (const intervalMs of [20, 2]) {
        const events = big.liveEvents / 2;
        latencies = [];
        const callsBefore = treeItemCalls;
        for (let i = 0; i < events; i++) {
          const event = stream.next();
          const at = performance.now();
          assert.ok(controller.model.applyEvents(folder, big.runId, [event]), `event ${event.seq} folds`);
          if ('taskId' in event && typeof event.taskId === 'string') pending.push({ nodeId: runsTree.taskNode(folder, big.runId, event.taskId).id, at });
          await pause(intervalMs);
        }
        await waitFor('every event shown in the tree', () => pending.length === 0, 60_000);
        streams.push({
          events,
          intervalMs,
          latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies) },
          treeItemsPerEvent: (treeItemCalls - callsBefore) / events,
        });
        await pause(500);
      }

      // Baseline: one full refresh of the same tree, timed until every task row was read again.
      const refreshStart = performance.now();
      const seenBefore = treeItemCalls;
      runsTree.refresh({ folders: new Set([folder]), runs: [] });
      await waitFor('a full refresh', () => treeItemCalls - seenBefore >= big.tasks, 60_000);
      const fullRefreshMs = performance.now() - refreshStart;
      const fullRefreshItems = treeItemCalls - seenBefore;

      const firstPaint = async (runId: string) => {
        api.RunViewPanel.show(api.services, folder, runId);
        const panel = await waitFor(`the run view of ${runId} to paint`, () => api.RunViewPanel.panels().find((p) => p.runId === runId && p.firstPaintMs !== undefined), 120_000);
        const ms = panel.firstPaintMs!;
        panel.dispose();
        return ms;
      };
      await firstPaint(BENCH_RUNS.small.runId); // warms the webview machinery once
      const result: ExtensionBenchResult = {
        activationMs: api.activationMs,
        activationBaselineMs,
        streams,
        fullRefreshes,
        fullRefreshMs,
        fullRefreshItems,
        firstPaintMs: { big: await firstPaint(big.runId), small: await firstPaint(BENCH_RUNS.small.runId) },
        bigRun: { tasks: big.tasks, events: big.recordedEvents + big.liveEvents },
      };
      console.log(`[taskloom-bench] ${JSON.stringify(result)}`);
      const out = process.env.TASKLOOM_TEST_ARTIFACTS;
      if (out) writeFileSync(join(out, 'extension-bench.json'), JSON.stringify(result, null, 2));
      assert.equal(fullRefreshes, 1, 'only the baseline refreshed the whole tree');
    } finally {
      runsTree.getTreeItem = getTreeItem;
      runsTree.getChildren = getChildren;
    }
  });
});

/** The extension's number of commands and an output channel, made and disposed: what activation cannot go below. */
function baselineActivation(): number {
  const commands = (vscode.extensions.getExtension('taskloom.taskloom')?.packageJSON.contributes.commands ?? []).length as number;
  const started = performance.now();
  const disposables: vscode.Disposable[] = [vscode.window.createOutputChannel('Taskloom bench baseline', { log: true })];
  for (let i = 0; i < commands; i++) disposables.push(vscode.commands.registerCommand(`taskloom.bench.baseline${i}`, () => undefined));
  const elapsed = performance.now() - started;
  for (const d of disposables) d.dispose();
  return elapsed;
}
