import { resolve } from 'node:path';
import type { OverlapMode, OverlapPair } from '../../engine/domain/events';
import { agentFor } from '../../engine/domain/agentRoles';
import type { Plan } from '../../engine/domain/plan';
import { loadPlanFile } from '../../engine/plan/loadPlanFile';
import { TaskloomEngine } from '../../engine/run/engine';
import { PlanningError } from '../../engine/run/planner';
import type { RunSession } from '../../engine/session/runSession';
import { askYesNo } from '../askYesNo';
import { startIssueRun } from '../issueRun';
import { EXIT, UsageError } from '../cliErrors';
import { driveWithProgress } from '../driveWithProgress';
import { createProgressPrinter } from '../progressPrinter';
import { printConfinement } from '../driveWithProgress';
import { bold, dim, yellow } from '../format';
import { printUserError } from '../cliProcess';
import { planTaskFindings, type PlanTaskFinding } from '../../engine/domain/planFindings';
import { planFindingsSentence } from '../../engine/text/planFindingWords';
import { planNextSteps, savePlanToFix } from '../planNextSteps';
import { approvePlan, rejectPlan } from '../../engine/usecases/planApproval';
import { draftPlan, startRun } from '../../engine/usecases/startRun';
import { foregroundDoor, type FrontDoor } from '../../engine/usecases/frontDoor';
import { printNewWarnings } from '../engineWarnings';
import { RUN_CONFIG_OPTIONS, type RunConfigFlags } from '../runOptions';
import { flagValues, runSettingsFrom, withAddingFlags } from '../flagSettings';
import { ALLOW_CONFIG_OPTION, commandSettings, settingLabels } from '../commandSettings';
import { parseCommandArgs } from '../parseCommandArgs';
import { NOTIFY_OPTION, notifyTargets } from '../notifyOption';
import { RUN_START_KEYS } from '../../engine/domain/settingKeys';

export const RUN_USAGE = `taskloom run (--plan FILE | --goal TEXT | --issue OWNER/REPO#N|URL|#N [--trust-issue]) [--agent claude|codex|command|scripted] [--parallel N] [--yes]
       [--planner-agent A] [--actor-agent A] [--critic-agent A]
       [--model M] [--planner-model M] [--actor-model M] [--critic-model M] [--claude-path P] [--codex-path P]
       [--codex-config KEY=VALUE]... [--command ARGV] [--script FILE]
       [--gate CMD]... [--keep-output GLOB]... [--allow-command CMD]... [--max-attempts N] [--max-reviews N] [--stuck-seconds N] [--gate-timeout N]
       [--budget-usd N] [--budget-tokens N] [--task-budget-usd N] [--task-budget-tokens N] [--candidates N] [--candidate-agents A[:M],…] [--confirm-pick]
       [--overlap serialize|warn|off] [--copy PATTERN]... [--setup CMD]... [--worktree-root inside|DIR]
       [--sandbox auto|on|off] [--allow-host HOST:PORT]... [--setup-host HOST:PORT]... [--gate-host HOST:PORT]...
       [--pass-env NAME]... [--hide-path PATH]... [--read-path PATH]... [--agents-see-included-files] [--sensitive-path GLOB]... [--notify URL]... [--allow-config] [--cwd DIR]
                                                settings: flags > TASKLOOM_<KEY> variables > taskloom.json > defaults (docs/settings.md)`;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, {
    plan: { type: 'string' },
    goal: { type: 'string' },
    issue: { type: 'string' },
    'trust-issue': { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
    ...RUN_CONFIG_OPTIONS,
    ...ALLOW_CONFIG_OPTION,
    ...NOTIFY_OPTION,
  });
  const goalFlag = values.goal as string | undefined;
  const issueFlag = values.issue as string | undefined;
  if (!values.plan && !goalFlag?.trim() && !issueFlag?.trim()) {
    throw new UsageError('run needs a plan or a goal: --plan FILE (JSON or a Markdown checklist), --goal TEXT for the planner, or --issue OWNER/REPO#N', RUN_USAGE);
  }
  if (issueFlag !== undefined && (values.plan || goalFlag !== undefined)) throw new UsageError('--issue takes the goal from the issue: give it without --plan or --goal', RUN_USAGE);
  const planFromFile = values.plan ? loadPlanFile(resolve(cwd, values.plan as string)) : undefined;
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom run', notify: notifyTargets(values) });
  try {
    printNewWarnings(engine);
    const flags = values as RunConfigFlags;
    const resolved = await commandSettings(engine.repo.root, flagValues(flags), { allowConfig: values['allow-config'] === true, onWithheld: 'ask', reads: issueFlag ? [...RUN_START_KEYS, 'github.apiUrl'] : RUN_START_KEYS });
    if (!resolved) return EXIT.needsHuman;
    const layered = withAddingFlags(resolved, flags);
    const door = foregroundDoor(engine, settingLabels(layered.sources));
    const settings = runSettingsFrom(layered, flags);
    const apiUrl = layered.values['github.apiUrl'] as string | undefined;
    const fromIssue = issueFlag ? await startIssueRun(door, { issue: issueFlag, trustIssue: values['trust-issue'] === true, ...(apiUrl ? { apiUrl } : {}) }, { settings, baseDir: cwd }) : undefined;
    if (issueFlag && !fromIssue) return EXIT.needsHuman;
    const started = fromIssue ?? startRun(door, { goal: goalFlag ?? planFromFile!.goal, plan: planFromFile, settings, baseDir: cwd });
    printNewWarnings(engine);
    const { session } = started;
    const { state } = session;
    process.stdout.write(
      `${bold('Run')} ${state.runId} from ${state.baseRef} @ ${state.baseCommit.slice(0, 10)}; gate: ${state.config.gateCommands.join(' && ') || dim('none configured')}\n`,
    );
    if (state.ignoredChanges.length) {
      process.stdout.write(
        yellow(`Your working tree has uncommitted changes; the run works from the last commit and ignores: ${state.ignoredChanges.join(', ')}\n`),
      );
    }
    const plan = started.plan ?? (await planWithProgress(door, session));
    if (!plan) return EXIT.needsHuman;
    printPlan(plan, state.goal, await engine.predictedOverlaps(session), state.config.overlap ?? 'off');
    const findings = planTaskFindings(plan);
    if (findings.length > 0) return endUnfinishedPlan(door, session, plan, findings);
    // taskloom.json's autopilot (or TASKLOOM_AUTOPILOT) approves as --yes does.
    const autopilot = values.yes === true || layered.values.autopilot === true;
    if (!autopilot && !(await askApproval())) {
      rejectPlan(door, { runId: session.runId });
      process.stdout.write('Plan not approved; nothing was run.\n');
      return EXIT.needsHuman;
    }
    const approved = approvePlan(door, { runId: session.runId, by: autopilot ? 'autopilot' : 'human' });
    return await driveWithProgress(engine, approved.session);
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}

/** Runs the planner (src/engine/usecases/startRun.ts draftPlan) with progress; a planning failure is reported, with the ways on. */
async function planWithProgress(door: FrontDoor, session: RunSession): Promise<Plan | undefined> {
  process.stdout.write(`${bold('Planning')} "${session.state.goal}" with the ${agentFor(session.state.config, 'planner').agent.kind} agent…\n`);
  printConfinement(await door.engine.confine(session));
  const stop = session.onEvent(createProgressPrinter());
  try {
    return await draftPlan(door, session, new AbortController().signal);
  } catch (error) {
    if (!(error instanceof PlanningError)) throw error;
    printUserError(error);
    const rejected = session.state.rejectedPlan;
    process.stdout.write(`${planNextSteps(session.state, rejected !== undefined ? savePlanToFix(session.state, rejected) : undefined).join('\n')}\n`);
    return undefined;
  } finally {
    stop();
  }
}

/**
 * A planner's plan with tasks left incomplete cannot be approved here (the editor's plan review
 * can fill them in): the run ends unapproved, and the plan is saved for the user to finish and start.
 */
function endUnfinishedPlan(door: FrontDoor, session: RunSession, plan: Plan, findings: PlanTaskFinding[]): number {
  const saved = savePlanToFix(session.state, `${JSON.stringify(plan, null, 2)}\n`);
  rejectPlan(door, { runId: session.runId, reason: `the plan cannot start: ${planFindingsSentence(findings)}` });
  process.stdout.write(`${yellow(`The plan cannot start: ${planFindingsSentence(findings)}.`)} Nothing was run; the other tasks are kept in the saved plan.\n`);
  process.stdout.write(`${planNextSteps(session.state, saved).join('\n')}\n`);
  return EXIT.needsHuman;
}

function printPlan(plan: Plan, goal: string, overlaps: OverlapPair[], mode: OverlapMode): void {
  const lines = [`${bold('Goal')} ${goal}`, ...(plan.rationale ? [dim(plan.rationale)] : [])];
  const findings = planTaskFindings(plan);
  for (const t of plan.tasks) {
    const missing = findings.filter((f) => f.taskId === t.id).map((f) => f.field);
    lines.push(`  ${bold(t.id)}  ${t.title}${t.dependsOn.length ? dim(`  (after ${t.dependsOn.join(', ')})`) : ''}${missing.length ? yellow(`  (no ${missing.join(', no ')})`) : ''}`);
  }
  if (overlaps.length) {
    const how = mode === 'serialize' ? 'each second task waits for the first to merge, then starts from it' : 'they run side by side (--overlap warn); the merge queue resolves conflicts';
    lines.push(yellow(`Predicted overlaps (from the files hints; ${how}):`));
    for (const o of overlaps) lines.push(`  ${o.second} after ${o.first}: both touch ${o.files.join(', ')}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function askApproval(): Promise<boolean> {
  return askYesNo('Approve this plan and start?', {
    message: 'The plan needs your approval',
    hint: 'Pass --yes to approve it without a prompt, or run in a terminal to be asked.',
  });
}
