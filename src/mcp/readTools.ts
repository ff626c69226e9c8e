import { readFileSync } from 'node:fs';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { getRun, listRuns } from '../engine/usecases/readRuns';
import { traceRun } from '../engine/usecases/traceRun';
import type { McpWorkspace } from './mcpWorkspace';
import { needsYouText, runsText } from './mcpText';
import { runStateText, traceText } from './runStateText';
import { tool } from './runTools';

const newestUnlessNamed = { runId: z.string().min(1).optional().describe('The run; by default the newest') };

/** The tools that read runs (no lock needed), and each run's DECISIONS.md and trace as resources. */
export function registerReadTools(server: McpServer, workspace: McpWorkspace): void {
  server.registerTool(
    'taskloom_runState',
    {
      description: "Where a run stands: its phase, each task's state and usage, and what to call next with its arguments (a decision that waits for you, taskloom_apply once it is completed).",
      inputSchema: newestUnlessNamed,
    },
    ({ runId }) => tool(() => workspace.withStore((store) => runStateText(getRun(store, { runId }), traceRun(store, { runId })))),
  );
  server.registerTool('taskloom_listRuns', { description: 'The runs in this repository, newest first: each id (what the other tools take as runId), phase, tasks merged and goal.', inputSchema: {} }, () =>
    tool(() => workspace.withStore((store) => runsText(listRuns(store)))),
  );
  server.registerTool(
    'taskloom_needsYou',
    { description: 'What in a run waits for a person: a plan to approve, tasks that need a decision, each with the choices taskloom_decide takes.', inputSchema: newestUnlessNamed },
    ({ runId }) => tool(() => workspace.withStore((store) => needsYouText(getRun(store, { runId })))),
  );
  server.registerTool(
    'taskloom_trace',
    { description: "A run's tasks, transitions with their reasons, attempts, timings and usage.", inputSchema: newestUnlessNamed },
    ({ runId }) => tool(() => workspace.withStore((store) => traceText(traceRun(store, { runId })))),
  );

  const runs = (kind: string) => async () => ({
    resources: (await workspace.withStore((store) => store.listRuns())).map((r) => ({ uri: `taskloom://runs/${r.runId}/${kind}`, name: `${r.runId} ${kind}` })),
  });
  server.registerResource(
    'decisions',
    new ResourceTemplate('taskloom://runs/{runId}/decisions', { list: runs('decisions') }),
    { description: "A run's DECISIONS.md: every gate, verdict and human decision, with the reasons", mimeType: 'text/markdown' },
    async (uri, { runId }) => {
      const text = await workspace.withStore((store) => readFileSync(store.runPaths(getRun(store, { runId: String(runId) }).runId).decisions, 'utf8'));
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    },
  );
  server.registerResource(
    'trace',
    new ResourceTemplate('taskloom://runs/{runId}/trace', { list: runs('trace') }),
    { description: "A run's trace: tasks, transitions with their reasons, attempts, timings, usage", mimeType: 'text/plain' },
    async (uri, { runId }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: await workspace.withStore((store) => traceText(traceRun(store, { runId: String(runId) }))) }] }),
  );
}
