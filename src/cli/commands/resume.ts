import { FLAG_LABELS } from '../runOptions';
import { assertAgentsInstalled } from '../../engine/run/assertAgentInstalled';
import { TaskloomEngine } from '../../engine/run/engine';
import { EXIT, UsageError } from '../cliErrors';
import { confirmForeignRun } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { formatRunSummary } from '../summary';
import { resumeOutlook } from '../../engine/domain/resumeOutlook';
import { planNextSteps, savePlanToFix } from '../planNextSteps';

export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { yes: { type: 'boolean', short: 'y' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom resume' });
  try {
    const runId = positionals[0] ?? engine.store.latestUnfinishedRunId();
    if (!runId) throw new UsageError('There is no unfinished run to resume here', 'List the runs with: taskloom runs');
    const session = engine.session(runId);
    for (const warning of engine.warnings.splice(0)) process.stderr.write(yellow(`warning: ${warning}\n`));
    if (session.state.status === 'completed') {
      process.stdout.write(`Run ${runId} already completed; nothing to resume.\n${formatRunSummary(session.state)}\n`);
      return EXIT.ok;
    }
    const outlook = resumeOutlook(session.state);
    if (outlook.kind === 'startAgain') {
      // Nothing was built; a plan nobody approved must not start by itself.
      if (session.state.status === 'planning') engine.rejectPlan(session, 'stopped before its plan was approved');
      const { plan, rejectedPlan } = session.state;
      const toFix = outlook.withPlan ? `${JSON.stringify(plan, null, 2)}\n` : rejectedPlan;
      process.stdout.write(`Run ${runId} cannot be resumed: ${outlook.why}.\n`);
      process.stdout.write(`${planNextSteps(session.state, toFix !== undefined ? savePlanToFix(session.state, toFix) : undefined).join('\n')}\n`);
      return EXIT.needsHuman;
    }
    if (!(await confirmForeignRun(engine, session, values.yes === true, `taskloom resume ${runId}`))) return EXIT.needsHuman;
    for (const warning of engine.warnings.splice(0)) process.stderr.write(yellow(`warning: ${warning}\n`));
    assertAgentsInstalled(session.state.config, session.state.plan, FLAG_LABELS);
    engine.prepareResume(session, `taskloom resume (was ${session.state.status})`);
    return await driveWithProgress(engine, session);
  } finally {
    engine.close();
  }
}
