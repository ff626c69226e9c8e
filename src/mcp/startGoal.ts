import { isAbsolute, relative, resolve } from 'node:path';
import { planTaskFindings } from '../engine/domain/planFindings';
import { runSettingsOf } from '../engine/domain/settingLayers';
import { RUN_START_KEYS } from '../engine/domain/settingKeys';
import { TaskloomError } from '../engine/domain/taskloomError';
import { loadPlanFile } from '../engine/plan/loadPlanFile';
import { environmentSettings } from '../engine/run/configFile/environmentSettings';
import { planFindingsSentence } from '../engine/text/planFindingWords';
import type { FrontDoor } from '../engine/usecases/frontDoor';
import { approvePlan, rejectPlan } from '../engine/usecases/planApproval';
import { ConfigNotAllowedError, resolveProjectSettings } from '../engine/usecases/projectSettings';
import { draftPlan, startRun } from '../engine/usecases/startRun';
import type { McpWorkspace } from './mcpWorkspace';
import { planText } from './mcpText';
import { inputValues, mcpSettingNames, type StartGoalInput } from './startGoalInput';

/**
 * taskloom_startGoal: a run from a goal (drafted by the planner meanwhile, with `report` saying
 * how far) or from a plan file, answered with its plan to approve, or approved and driven in the
 * background with autoApprove (or `autopilot` in taskloom.json).
 */
export async function startGoal(workspace: McpWorkspace, input: StartGoalInput, report: (message: string) => void): Promise<string> {
  if (!input.goal?.trim() && !input.planFile) {
    throw new TaskloomError('bad_input', 'taskloom_startGoal needs a goal or a planFile', 'Pass goal (what to build, for the planner) or planFile (a plan inside the repository).');
  }
  return workspace.withDoor(async (door) => {
    const root = door.engine.repo.root;
    const planFromFile = input.planFile ? loadPlanFile(insideRepository(root, input.planFile, 'plan file')) : undefined;
    // The tool's input is the caller's own layer, as the CLI's flags; taskloom.json's keys that start
    // programs count only once the user allowed the file in a terminal: the server cannot ask (stdin is the protocol).
    const layered = resolveProjectSettings({
      repoRoot: root,
      above: [
        { source: 'tool', values: inputValues(input, input.script && insideRepository(root, input.script, 'scenario file')) },
        { source: 'environment', values: environmentSettings(process.env) },
      ],
      trust: 'allowed-on-this-machine',
      reads: RUN_START_KEYS,
    });
    if (layered.withheld.length) throw new ConfigNotAllowedError(layered.file!, layered.withheld);
    const named: FrontDoor = { ...door, settingNames: mcpSettingNames(layered.sources) };
    const started = startRun(named, { goal: input.goal?.trim() || planFromFile!.goal, plan: planFromFile, settings: runSettingsOf(layered.values), baseDir: root });
    const { session } = started;
    report(`Run ${session.runId} created`);
    const plan = started.plan ?? (await planWithProgress(named, session, report));
    const findings = planTaskFindings(plan);
    if (findings.length) {
      rejectPlan(named, { runId: session.runId, reason: `the plan cannot start: ${planFindingsSentence(findings)}` });
      throw new TaskloomError('bad_input', `The plan of run ${session.runId} cannot start: ${planFindingsSentence(findings)}`, 'Write a plan file with those filled in and start it with planFile.');
    }
    if (!input.autoApprove && layered.values.autopilot !== true) return planText(session.runId, plan);
    const approved = approvePlan(named, { runId: session.runId, by: 'autopilot' });
    workspace.driveInBackground(door.engine, approved.session);
    report(`Run ${session.runId} approved and under way`);
    return [`Plan approved without asking (${input.autoApprove ? 'autoApprove' : 'autopilot in taskloom.json'}).`, ...planText(session.runId, plan).split('\n').slice(1, -1), underWay(session.runId)].join('\n');
  });
}

/** What a model does once a run goes on without it: read it, or subscribe to its trace for word of each change. */
export const underWay = (runId: string): string =>
  `Run ${runId} is under way in the background. Follow it with taskloom_runState { "runId": "${runId}" }, or subscribe to the resource taskloom://runs/${runId}/trace to hear of each change.`;

async function planWithProgress(door: FrontDoor, session: ReturnType<FrontDoor['session']>, report: (message: string) => void) {
  const stop = session.onEvent((event) => report(`planning: ${event.type.replaceAll('_', ' ')}`));
  try {
    return await draftPlan(door, session, new AbortController().signal);
  } finally {
    stop();
  }
}

/** A path is taken from the repository only: the caller is a model, and a file outside it is nobody's to hand in. */
function insideRepository(root: string, path: string, what: string): string {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new TaskloomError('bad_input', `The ${what} ${path} is outside the repository ${root}`, `Put the ${what} in the repository and pass its path relative to the root.`);
  }
  return full;
}
