import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtensionBenchResult } from '../test/vscode/suite/extensionBench.test';
import type { Section } from './report';
import { ms, ratio } from './stats';

const root = join(__dirname, '..');

/**
 * Section 6. The extension inside a real VS Code (the VS Code 1.100 server + Chromium, as the
 * in-VS-Code tests run it): the `bench` session of test/vscode/sessions.mjs measures and
 * writes its figures; this turns them into the report.
 */
export function benchExtension(): Section {
  const run = spawnSync(process.execPath, ['scripts/vscode/runVsCodeTests.mjs', 'vscode:bench'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the extension benchmark session failed (exit ${run.status}):\n${run.stdout.slice(-3000)}`);
  const r = JSON.parse(readFileSync(join(root, 'test-artifacts', 'vscode', 'bench', 'extension-bench.json'), 'utf8')) as ExtensionBenchResult;
  const [steady, burst] = r.streams;
  const streamRow = (label: string, s: ExtensionBenchResult['streams'][number]) => [
    label,
    `${s.events} events, one per ${s.intervalMs} ms`,
    ms(s.latencyMs.p50),
    ms(s.latencyMs.p95),
    ms(s.latencyMs.max),
    s.treeItemsPerEvent.toFixed(2),
    ratio(s.latencyMs.p50 / r.fullRefreshMs),
  ];
  return {
    title: '6. Extension: activation, tree updates, run view first paint',
    method:
      `In a real VS Code 1.100 extension host (\`npm run test:vscode -- vscode:bench\`), on a workspace holding a recorded run of ` +
      `${r.bigRun.tasks} tasks (${r.bigRun.events.toLocaleString('en-US')} events in all) and one of 5 tasks. ` +
      'Activation: `activate()` without starting the engine, against registering as many commands and an output channel (the floor of any activation). ' +
      'Tree updates: the last 1,000 events are fed to the extension one at a time, as the engine sends them, with the run expanded in the Runs view; ' +
      'latency is from an event arriving to VS Code reading the changed task row (getTreeItem), against one full refresh of the same tree. ' +
      'First paint: opening the run view until the webview reports it has drawn the run, against the same for the 5-task run.',
    tables: [
      {
        headers: ['figure', 'measured', 'baseline', 'ratio'],
        rows: [
          ['activation (no engine start)', ms(r.activationMs), ms(r.activationBaselineMs), ratio(r.activationMs / r.activationBaselineMs)],
          ['run view first paint, 500 tasks vs 5', ms(r.firstPaintMs.big), ms(r.firstPaintMs.small), ratio(r.firstPaintMs.big / r.firstPaintMs.small)],
          ['one full tree refresh (baseline below)', ms(r.fullRefreshMs), `${r.fullRefreshItems} rows read`, ''],
        ],
        numeric: [1, 2, 3],
      },
      {
        headers: ['stream', 'pace', 'latency p50', 'p95', 'max', 'rows read per event', 'p50 / full refresh'],
        rows: [streamRow('steady', steady!), streamRow('burst', burst!)],
        numeric: [2, 3, 4, 5, 6],
      },
    ],
    notes: [
      `Full-tree refreshes while events streamed: ${r.fullRefreshes - 1} (the one counted is the baseline's).`,
      'Rows are fired at most every 250 ms: VS Code debounces tree changes for 200 ms and restarts the wait on each change, so firing per event starved the tree of updates until the stream paused (p50 5.5 s on a steady stream before this pacing).',
    ],
  };
}
