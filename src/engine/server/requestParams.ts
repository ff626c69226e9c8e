import * as z from 'zod';
import type * as protocol from '../../protocol/engineProtocol';
import type { Plan } from '../domain/plan';
import { FILLABLE_TASK_FIELDS } from '../domain/planFindings';
import type { RunSettings } from '../domain/runSettings';
import { isValidRunId } from '../store/paths';
import { UserError } from './userError';

// What a client may send with each request, checked before any handler runs: the editor is
// the usual client, but anything that can reach the server's stdio speaks the same protocol.
// Each schema is tied to the protocol's type, so the two cannot drift apart unnoticed. What a
// value means (a path inside the repository, a revision, a setting) is its handler's to check.

const folder = z.string().min(1);
const runId = z.string().refine(isValidRunId, { message: 'not a valid run id (letters, digits, ".", "_", "-")' });
const taskId = z.string().min(1);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** An object: each value is checked where the run's config is made (runConfigFromSettings), naming its setting. */
const settings = z.custom<RunSettings>(isObject, { message: 'must be an object of settings' });
/** The shape only: the plan's own schema checks it in full where an edited plan is taken. */
const plan = z.custom<Plan>((value) => isObject(value) && Array.isArray(value.tasks), { message: 'must be a plan with tasks' });

const planTaskFix = z.union([
  z.strictObject({ taskId, fill: z.strictObject({ field: z.enum(FILLABLE_TASK_FIELDS), text: z.string() }) }),
  z.strictObject({ taskId, drop: z.literal(true) }),
]);

const folderParams = z.object({ folder });
const runParams = folderParams.extend({ runId });
const taskParams = runParams.extend({ taskId, trustRun: z.boolean().optional() });
const forgeParams = { token: z.string().optional(), apiUrl: z.string().optional() };

export type Schema<P> = z.ZodType<P, unknown>;
/**
 * The schema for params of type P: what it lets through must be a P, and it must know every
 * field of P (a field it did not know would be stripped before the handler saw it).
 */
const params =
  <P>() =>
  <S extends z.ZodType<P, unknown>>(schema: S & (Exclude<keyof P, keyof z.output<S>> extends never ? unknown : { missing: Exclude<keyof P, keyof z.output<S>> })): Schema<P> =>
    schema;

export const REQUEST_PARAMS = {
  startGoal: params<protocol.StartGoalParams>()(folderParams.extend({ goal: z.string().optional(), planFile: z.string().optional(), settings, workspaceTrusted: z.boolean().optional() })),
  approvePlan: params<protocol.ApprovePlanParams>()(runParams.extend({ plan: plan.optional(), by: z.enum(['human', 'autopilot']) })),
  rejectPlan: params<protocol.RejectPlanParams>()(runParams.extend({ reason: z.string() })),
  revisePlan: params<protocol.RevisePlanParams>()(runParams.extend({ fix: planTaskFix })),
  resume: params<protocol.ResumeParams>()(folderParams.extend({ runId: runId.optional(), trustRun: z.boolean().optional(), baselineChoice: z.enum(['advisory', 'required']).optional() })),
  run: params<protocol.RunParams>()(runParams),
  folder: params<protocol.FolderParams>()(folderParams),
  listRuns: params<protocol.ListRunsParams>()(folderParams.extend({ skipDiskUsage: z.boolean().optional() })),
  runStats: params<protocol.RunStatsParams>()(folderParams.extend({ since: z.string().optional(), runIds: z.array(runId).optional() })),
  taskDecision: params<protocol.TaskDecisionParams>()(taskParams.extend({ action: z.enum(['retry', 'accept', 'skip']), note: z.string().optional() })),
  chooseCandidate: params<protocol.ChooseCandidateParams>()(taskParams.extend({ candidate: z.number().int().positive(), note: z.string().optional() })),
  task: params<protocol.TaskParams>()(taskParams),
  sendToTask: params<protocol.SendToTaskParams>()(taskParams.extend({ text: z.string() })),
  applyIntegration: params<protocol.ApplyIntegrationParams>()(runParams.extend({ history: z.enum(['merge', 'squash']).optional() })),
  discardRun: params<protocol.DiscardRunParams>()(runParams.extend({ force: z.boolean().optional() })),
  openPullRequest: params<protocol.OpenPullRequestParams>()(
    runParams.extend({ ...forgeParams, remote: z.string().optional(), draft: z.boolean().optional(), stacked: z.boolean().optional() }),
  ),
  adoptPullRequest: params<protocol.AdoptPullRequestParams>()(folderParams.extend({ ...forgeParams, pullRequest: z.string().min(1), settings, workspaceTrusted: z.boolean().optional() })),
  watchPullRequests: params<protocol.WatchPullRequestsParams>()(
    runParams.extend({
      ...forgeParams,
      intervalSeconds: z.number().positive().optional(),
      trustedBots: z.array(z.string()).optional(),
      once: z.boolean().optional(),
      escalateAfterMinutes: z.number().nonnegative().optional(),
      autoMerge: z.boolean().optional(),
    }),
  ),
  diff: params<protocol.DiffParams>()(runParams.extend({ taskId: taskId.optional(), reviewSeq: z.number().int().positive().optional(), candidate: z.number().int().positive().optional() })),
  fileAtCommit: params<protocol.FileAtCommitParams>()(folderParams.extend({ commit: z.string().min(1), path: z.string().min(1) })),
  doctor: params<protocol.FolderParams & { settings: protocol.StartGoalParams['settings']; workspaceTrusted?: boolean }>()(folderParams.extend({ settings, workspaceTrusted: z.boolean().optional() })),
  runEvent: params<protocol.RunEventParams>()(runParams.extend({ seq: z.number().int().positive() })),
  prepareDemo: params<protocol.PrepareDemoParams>()(folderParams.extend({ delayMs: z.number().int().nonnegative().optional() })),
  restoreSnapshot: params<protocol.RestoreSnapshotParams>()(runParams.extend({ seq: z.number().int().positive() })),
  transcript: params<protocol.TranscriptParams>()(runParams.extend({ seqs: z.array(z.number().int().positive()).max(10_000) })),
  checkPlan: params<protocol.CheckPlanParams>()(z.object({ text: z.string(), source: z.string() })),
  openIssues: params<protocol.OpenIssuesParams>()(folderParams.extend(forgeParams)),
  issueGoal: params<protocol.IssueGoalParams>()(folderParams.extend({ ...forgeParams, issue: z.string().min(1) })),
  startIssueGoal: params<protocol.StartIssueGoalParams>()(
    folderParams.extend({ ...forgeParams, issue: z.string().min(1), confirmedGoal: z.string().optional(), settings, workspaceTrusted: z.boolean().optional() }),
  ),
  setNotifyTargets: params<protocol.SetNotifyTargetsParams>()(z.object({ targets: z.array(z.string()).max(20) })),
};

/** The params as the schema allows them, or a UserError naming each field that is off. */
export function checkedParams<P>(schema: Schema<P>, method: string, value: unknown): P {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`);
  throw new UserError(`${method}: the request's parameters are not valid (${problems.join('; ')})`, 'This is a problem of the client that sent it, not of your run.');
}
