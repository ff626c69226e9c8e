// What a click on an element with `data-action` asks of the extension: the attributes that
// mark it, and the message they make. Pure (it reads attributes only), so it is tested in Node;
// actionListener.ts listens for the clicks.
import { TASK_DECISIONS, type TaskDecision } from '../../engine/domain/runActions';
import type { FromWebview, NextStep } from '../../protocol/webviewMessages';

export type Action = 'reveal' | 'choose-candidate' | 'diff' | 'integration-diff' | 'gate-output' | 'restore-snapshot' | 'pull-request' | 'decide' | 'plan' | 'plan-document' | 'deliver' | 'fix-plan' | 'next-step';

const DECISIONS: readonly TaskDecision[] = TASK_DECISIONS;
const PLAN_DECISIONS = ['approve', 'edit', 'cancel'] as const;
const DELIVERIES = ['apply', 'pullRequest'] as const;
const PLAN_FIXES = ['fill', 'drop'] as const;
const NEXT_STEPS = ['resume', 'treatAsAdvisory', 'keepAsRequired', 'cancelRun', 'planAgain', 'startWithPlan', 'openRejectedPlan'] as const satisfies readonly NextStep[];

/**
 * The data attributes that make an element post `action`; `choice` names the decision of 'decide', 'plan', 'deliver', 'fix-plan' and
 * 'next-step', `candidate` the candidate of 'diff' and 'choose-candidate'.
 */
export function actionAttrs(action: Action, target: { taskId?: string; seq?: number; key?: string; choice?: string; candidate?: number } = {}): Record<string, string> {
  return {
    'data-action': action,
    ...(target.key !== undefined ? { 'data-key': target.key } : {}),
    ...(target.taskId !== undefined ? { 'data-task': target.taskId } : {}),
    ...(target.seq !== undefined ? { 'data-seq': String(target.seq) } : {}),
    ...(target.choice !== undefined ? { 'data-choice': target.choice } : {}),
    ...(target.candidate !== undefined ? { 'data-candidate': String(target.candidate) } : {}),
  };
}

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined => values.find((v) => v === value);

/** The part of an element that messageFor reads. */
export interface ActionElement {
  getAttribute(name: string): string | null;
}

export function messageFor(el: ActionElement): FromWebview | undefined {
  const taskId = el.getAttribute('data-task') ?? undefined;
  const seq = Number(el.getAttribute('data-seq'));
  const validSeq = Number.isInteger(seq) && seq > 0;
  const choice = el.getAttribute('data-choice');
  // A candidate's card names its candidate: its diff, or choosing it without the quick pick.
  const candidateNumber = Number(el.getAttribute('data-candidate'));
  const candidate = Number.isInteger(candidateNumber) && candidateNumber > 0 ? candidateNumber : undefined;
  switch (el.getAttribute('data-action') as Action | null) {
    case 'reveal':
      return taskId !== undefined ? { type: 'revealTask', taskId } : undefined;
    case 'diff':
      return taskId !== undefined ? { type: 'showTaskDiff', taskId, ...(validSeq ? { reviewSeq: seq } : {}), ...(candidate ? { candidate } : {}) } : undefined;
    case 'choose-candidate':
      return taskId !== undefined ? { type: 'chooseCandidate', taskId, ...(candidate ? { candidate } : {}) } : undefined;
    case 'integration-diff':
      return { type: 'showIntegrationDiff' };
    case 'pull-request':
      return { type: 'openPullRequest', key: el.getAttribute('data-key') ?? '' };
    case 'gate-output':
      return validSeq ? { type: 'showGateOutput', seq } : undefined;
    case 'restore-snapshot':
      return validSeq ? { type: 'restoreSnapshot', seq } : undefined;
    case 'decide': {
      const action = oneOf(DECISIONS, choice);
      return taskId !== undefined && action ? { type: 'decideTask', taskId, action } : undefined;
    }
    case 'plan': {
      const decision = oneOf(PLAN_DECISIONS, choice);
      return decision ? { type: 'decidePlan', decision } : undefined;
    }
    case 'plan-document':
      return { type: 'showPlanDocument' };
    case 'deliver': {
      const how = oneOf(DELIVERIES, choice);
      return how ? { type: 'deliver', how } : undefined;
    }
    case 'fix-plan': {
      const fix = oneOf(PLAN_FIXES, choice);
      return taskId !== undefined && fix ? { type: 'fixPlanTask', taskId, fix } : undefined;
    }
    case 'next-step': {
      const step = oneOf(NEXT_STEPS, choice);
      return step ? { type: 'nextStep', step } : undefined;
    }
    default:
      return undefined;
  }
}
