// The Insights page as the suites see it: its charts and bars by what they are.
import { click, readTexts, waitFor, WEBVIEW_FRAMES, type PageTarget } from '../runnerControl';

type Chart = 'cost-over-time' | 'first-pass-by-agent' | 'first-pass-by-role' | 'decisions';

const inPage = (selector: string): PageTarget => ({ selector, frames: WEBVIEW_FRAMES });

export const insightsPage = {
  shown: () => waitFor(inPage('.insights h1')),
  summary: async () => (await readTexts(inPage('.insights-summary'))).join('\n'),
  chartTitles: () => readTexts(inPage('.insights-chart h2')),
  barLabels: (chart: Chart) => readTexts(inPage(`.insights-chart.${chart} .bar-label`)),
  barValues: (chart: Chart) => readTexts(inPage(`.insights-chart.${chart} .bar-value`)),
  /** Opens the run behind a bar of the chart. */
  clickRun: (chart: Chart, runId: string) => click(inPage(`.insights-chart.${chart} .insights-bar[data-run="${runId}"]`)),
  themeShown: (kind: 'light' | 'dark') => waitFor(inPage(`body.vscode-${kind} .insights`)),
};
