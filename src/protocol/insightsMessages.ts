// Messages between the Insights webview (src/webview/insights) and the extension, by postMessage:
// the figures of `taskloom stats` (report/runStats.ts) one way, a person's click the other.
import type { RunStats } from '../engine/report/runStats';

export type ToInsights =
  /** The figures over every run of the folder's repository; sent when the view opens and again when a run ends. */
  { type: 'stats'; stats: RunStats; warnings: string[] };

export type FromInsights =
  /** The webview has loaded its script and wants the figures. */
  | { type: 'ready' }
  /** Open the runs behind a figure: the one run in the run view, or a choice of them (newest last). */
  | { type: 'openRuns'; runIds: string[] };
