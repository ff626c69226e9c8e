import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EventStream } from '../../../bench/events';
import type { RunsNode } from '../../../src/extension/tree/runsTreeProvider';
import { BENCH_RUNS } from '../fixtures/benchRuns';
import { watchRunViews } from './runViewWatch';
import { taskloom, waitFor, workspaceFolder } from './vscodeUtil';

/** Figures for `npm run bench` (bench/extensionBench.ts reads the JSON this writes). */
export interface ExtensionBenchResult {
  activationMs: number;
  /** Registering as many commands and making an output channel, nothing else: the floor of any activation. */
  activationBaselineMs: number;
  /**
   * Per pace of arrival: a real run's (a few events a second, gaps above VS Code's 200 ms tree
   * debounce), a steady stream (a very busy run) and a burst (replaying a backlog).
   */
  streams: Array<{
    pace: 'realistic' | 'steady' | 'burst';
    events: number;
    /** The gap between two events: fixed, or drawn from [min, max]. */
    intervalMs: number | { min: number; max: number };
    latencyMs: { p50: number; p95: number; max: number };
    treeItemsPerEvent: number;
  }>;
  /** Where an event's time goes in the extension host: folding it into the model, and building a task row for VS Code. */
  costMs: { foldPerEvent: number; flush: number; taskRow: number };
  fullRefreshes: number;
  /** One full refresh of the same tree (what a refresh per event would cost each time). */
  fullRefreshMs: number;
  fullRefreshItems: number;
  /** The median of FIRST_PAINTS openings of each, alternating (a loaded machine makes single ones noisy), and each opening. */
  firstPaintMs: { big: number; small: number; bigRuns: number[]; smallRuns: number[] };
  bigRun: { tasks: number; events: number };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FIRST_PAINTS = 3;

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
      let taskRowMs = 0;
      let taskRows = 0;
      let foldMs = 0;
      let folded = 0;
      runsTree.getTreeItem = (node: RunsNode) => {
        treeItemCalls += 1;
        const now = performance.now();
        for (let i = pending.length - 1; i >= 0; i--) {
          if (pending[i]!.nodeId === node.id) {
            latencies.push(now - pending[i]!.at);
            pending.splice(i, 1);
          }
        }
        const item = getTreeItem(node);
        if (node.kind === 'task') {
          taskRowMs += performance.now() - now;
          taskRows += 1;
        }
        return item;
      };
      // A flush hands a change to every listener (the Runs tree, Needs You, the status bar…).
      const model = controller.model;
      const flush = model.flush.bind(model);
      let flushMs = 0;
      let flushes = 0;
      model.flush = () => {
        const t0 = performance.now();
        flush();
        flushMs += performance.now() - t0;
        flushes += 1;
      };
      // A seeded draw, so every run of the benchmark sees the same gaps.
      let seed = 11;
      const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
      const paces: Array<{ pace: ExtensionBenchResult['streams'][number]['pace']; events: number; gap: () => number; intervalMs: ExtensionBenchResult['streams'][number]['intervalMs'] }> = [
        { pace: 'realistic', events: 100, gap: () => 220 + random() * 380, intervalMs: { min: 220, max: 600 } },
        { pace: 'steady', events: (big.liveEvents - 100) / 2, gap: () => 20, intervalMs: 20 },
        { pace: 'burst', events: (big.liveEvents - 100) / 2, gap: () => 2, intervalMs: 2 },
      ];
      const streams: ExtensionBenchResult['streams'] = [];
      for (const { pace, events, gap, intervalMs } of paces) {
        latencies = [];
        const callsBefore = treeItemCalls;
        for (let i = 0; i < events; i++) {
          const event = stream.next();
          const at = performance.now();
          assert.ok(controller.model.applyEvents(folder, big.runId, [event]), `event ${event.seq} folds`);
          foldMs += performance.now() - at;
          folded += 1;
          if ('taskId' in event && typeof event.taskId === 'string') pending.push({ nodeId: runsTree.taskNode(folder, big.runId, event.taskId).id, at });
          await pause(gap());
        }
        await waitFor('every event shown in the tree', () => pending.length === 0, 60_000);
        streams.push({
          pace,
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

      const views = watchRunViews(api);
      const firstPaint = async (runId: string) => {
        const opened = performance.now();
        api.services.runViews.show(folder, runId);
        const panel = await waitFor(`the run view of ${runId} to paint`, () => views.drawn(runId), 120_000);
        const ms = views.of(panel).firstRenderedAt! - opened;
        panel.dispose();
        return ms;
      };
      await firstPaint(BENCH_RUNS.small.runId); // warms the webview machinery once
      const bigRuns: number[] = [];
      const smallRuns: number[] = [];
      for (let i = 0; i < FIRST_PAINTS; i++) {
        bigRuns.push(await firstPaint(big.runId));
        smallRuns.push(await firstPaint(BENCH_RUNS.small.runId));
      }
      const result: ExtensionBenchResult = {
        activationMs: api.activationMs,
        activationBaselineMs,
        streams,
        costMs: { foldPerEvent: foldMs / folded, flush: flushMs / flushes, taskRow: taskRowMs / taskRows },
        fullRefreshes,
        fullRefreshMs,
        fullRefreshItems,
        firstPaintMs: { big: percentile(bigRuns, 50), small: percentile(smallRuns, 50), bigRuns, smallRuns },
        bigRun: { tasks: big.tasks, events: big.recordedEvents + big.liveEvents },
      };
      console.log(`[taskloom-bench] ${JSON.stringify(result)}`);
      const out = process.env.TASKLOOM_TEST_ARTIFACTS;
      if (out) writeFileSync(join(out, 'extension-bench.json'), JSON.stringify(result, null, 2));
      assert.equal(fullRefreshes, 1, 'only the baseline refreshed the whole tree');
    } finally {
      runsTree.getTreeItem = getTreeItem;
      runsTree.getChildren = getChildren;
      delete (controller.model as Partial<typeof controller.model>).flush;
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
