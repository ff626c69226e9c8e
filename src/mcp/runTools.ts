import { isAbsolute, relative, resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { planTaskFindings } from '../engine/domain/planFindings';
import { RUN_START_KEYS } from '../engine/domain/settingKeys';
import { TaskloomError } from '../engine/domain/taskloomError';
import { loadPlanFile } from '../engine/plan/loadPlanFile';
import { planFindingsSentence } from '../engine/text/planFindingWords';
import { appliedAs } from '../engine/text/applyWords';
import { applyIntegration } from '../engine/usecases/applyIntegration';
import { decideTask } from '../engine/usecases/decideTask';
import type { FrontDoor } from '../engine/usecases/frontDoor';
import { approvePlan, rejectPlan } from '../engine/usecases/planApproval';
import { ConfigNotAllowedError } from '../engine/usecases/projectSettings';
import { draftPlan, startRun } from '../engine/usecases/startRun';
import { commandSettings, settingLabels } from '../cli/commandSettings';
import { flagValues, runSettingsFrom } from '../cli/flagSettings';
import type { RunConfigFlags } from '../cli/runOptions';
import type { McpWorkspace } from './mcpWorkspace';
import { answer, errorAnswer, planText, type ToolAnswer } from './mcpText';
import { progressReporter, type ToolExtra } from './progress';

const runId = z.string().min(1).describe('The run, as taskloom_listRuns names it');

export const START_GOAL_INPUT = {
  goal: z.string().optional().describe("What to build: the planner drafts a plan from it (or the plan file's goal is replaced by it)"),
  planFile: z.string().optional().describe("A plan the user wrote: a JSON plan or Markdown checklist inside the repository, relative to its root"),
  agent: z.enum(['claude', 'codex', 'command', 'scripted']).optional().describe('The agent of every role (default: the settings, else claude)'),
  script: z.string().optional().describe("The scripted agent's scenario file (tests and demos)"),
  gate: z.array(z.string()).optional().describe('Gate commands every task must pass (default: detected from the project)'),
  parallel: z.number().int().positive().optional().describe('Tasks run side by side at most'),
  maxAttempts: z.number().int().positive().optional().describe("Actor attempts per task before it needs you"),
  autoApprove: z.boolean().optional().describe('Approve the plan and start at once, without asking the user'),
};

/** The tools that change a run: start, approve, decide, apply. Each calls its use case and words the outcome. */
export function registerRunTools(server: McpServer, workspace: McpWorkspace): void {
  server.registerTool(
    'taskloom_startGoal',
    { description: 'Start a Taskloom run from a goal or a plan file. Answers with the plan to approve (taskloom_approvePlan) and the run id; with autoApprove the run starts at once, in the background.', inputSchema: START_GOAL_INPUT },
    (input, extra) => tool(() => startGoal(workspace, input, extra)),
  );
  server.registerTool(
    'taskloom_approvePlan',
    { description: 'Approve the plan a run waits with, and drive the run in the background.', inputSchema: { runId } },
    ({ runId }) =>
      tool(() =>
        workspace.withDoor((door) => {
          const { session } = approvePlan(door, { runId, by: 'human' });
          workspace.driveInBackground(door.engine, session);
          return `Plan approved: run ${runId} is under way. Follow it with taskloom_runState, and taskloom_needsYou for what waits for you.`;
        }),
      ),
  );
  server.registerTool(
    'taskloom_decide',
    {
      description: 'Decide on a task that needs you (see taskloom_needsYou): retry it (with a note for its agent), accept its work as it is, or skip it and what depends on it. The run then goes on in the background.',
      inputSchema: { runId: runId.optional(), taskId: z.string().min(1), action: z.enum(['retry', 'accept', 'skip']), note: z.string().optional().describe('For retry: what the agent should do differently') },
    },
    (input) =>
      tool(() =>
        workspace.withDoor(async (door) => {
          const outcome = await decideTask(door, input);
          if (outcome.kind === 'readyToDrive') workspace.driveInBackground(door.engine, outcome.session);
          return `Decided: ${input.action} ${input.taskId}. The run goes on in the background; follow it with taskloom_runState.`;
        }),
      ),
  );
  server.registerTool(
    'taskloom_apply',
    { description: "Land a completed run on the user's current branch (merge history: one commit per task joined by a merge commit; squash: the task commits on the branch itself).", inputSchema: { runId: runId.optional(), history: z.enum(['merge', 'squash']).optional() } },
    (input) =>
      tool(() =>
        workspace.withDoor(async (door) => {
          const applied = await applyIntegration(door, input);
          if (applied.alreadyApplied) return `Run ${applied.runId} was applied to ${applied.branch} before; nothing changed.`;
          const left = applied.leftOut.length ? ` Left out (skipped): ${applied.leftOut.map((t) => t.taskId).join(', ')}.` : '';
          return `Applied run ${applied.runId} to ${applied.branch} as ${appliedAs(applied.history, applied.commits)}, now at ${applied.commit.slice(0, 10)}; ${applied.files.length} files changed.${left}`;
        }),
      ),
  );
}

/** Every tool answers: a typed error becomes a tool error with its message and hint, and the server keeps serving. */
export async function tool(work: () => Promise<string> | string): Promise<ToolAnswer> {
  try {
    return answer(await work());
  } catch (error) {
    return errorAnswer(error);
  }
}

async function startGoal(workspace: McpWorkspace, input: z.infer<z.ZodObject<typeof START_GOAL_INPUT>>, extra: ToolExtra): Promise<string> {
  if (!input.goal?.trim() && !input.planFile) {
    throw new TaskloomError('bad_input', 'taskloom_startGoal needs a goal or a planFile', 'Pass goal (what to build, for the planner) or planFile (a plan inside the repository).');
  }
  const report = progressReporter(extra);
  return workspace.withDoor(async (door) => {
    const root = door.engine.repo.root;
    const planFromFile = input.planFile ? loadPlanFile(insideRepository(root, input.planFile)) : undefined;
    const flags: RunConfigFlags = {
      agent: input.agent,
      script: input.script && resolve(root, input.script),
      gate: input.gate,
      parallel: input.parallel?.toString(),
      'max-attempts': input.maxAttempts?.toString(),
    };
    // Asking is for a terminal: here stdin is the protocol, so what taskloom.json may not set is an error naming `taskloom config allow`.
    const settings = await commandSettings(root, flagValues(flags), { allowConfig: false, onWithheld: 'report', reads: RUN_START_KEYS });
    if (settings!.withheld.length) throw new ConfigNotAllowedError(settings!.file!, settings!.withheld);
    const started = startRun({ ...door, settingNames: settingLabels(settings!.sources) }, { goal: input.goal?.trim() || planFromFile!.goal, plan: planFromFile, settings: runSettingsFrom(settings!, flags), baseDir: root });
    const { session } = started;
    report(`Run ${session.runId} created`);
    const plan = started.plan ?? (await planWithProgress(door, session, report));
    const findings = planTaskFindings(plan);
    if (findings.length) {
      rejectPlan(door, { runId: session.runId, reason: `the plan cannot start: ${planFindingsSentence(findings)}` });
      throw new TaskloomError('bad_input', `The plan of run ${session.runId} cannot start: ${planFindingsSentence(findings)}`, 'Write a plan file with those filled in and start it with planFile.');
    }
    if (!input.autoApprove && settings!.values.autopilot !== true) return planText(session.runId, plan);
    const approved = approvePlan(door, { runId: session.runId, by: 'autopilot' });
    workspace.driveInBackground(door.engine, approved.session);
    report(`Run ${session.runId} approved and under way`);
    return `${planText(session.runId, plan).split('\n').slice(1, -1).join('\n')}\nApproved: run ${session.runId} is under way in the background. Follow it with taskloom_runState.`;
  });
}

async function planWithProgress(door: FrontDoor, session: ReturnType<FrontDoor['session']>, report: (message: string) => void) {
  const stop = session.onEvent((event) => report(`planning: ${event.type.replaceAll('_', ' ')}`));
  try {
    return await draftPlan(door, session, new AbortController().signal);
  } finally {
    stop();
  }
}

/** A plan path is taken from the repository only: the caller is a model, and a plan outside it is nobody's to hand in. */
function insideRepository(root: string, path: string): string {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new TaskloomError('bad_input', `The plan file ${path} is outside the repository ${root}`, 'Put the plan file in the repository and pass its path relative to the root.');
  }
  return full;
}
