import type { HumanAction } from '../domain/events';
import { humanRefusalWords } from '../domain/humanActions';
import type { RunRefusal, TaskAction, TaskRefusal } from '../domain/runActions';
import { RUN_PHASE_WORDS } from '../domain/runPhase';
import { TASK_STATE_WORDS } from '../domain/stateWords';
import type { TaskView } from '../domain/runState';
import { counted } from './counted';
import { baselineChoiceWords } from './gateWords';
import { planFindingsSentence } from './planFindingWords';

/**
 * Why an action no longer applies, said plainly: what a stale button, a row's action or a palette
 * command answers instead of failing. `run` names the run ("run "add rate limiting"", or its id).
 */
export function runRefusalWords(refusal: RunRefusal, run: string): string {
  switch (refusal.kind) {
    case 'plan_approved':
      return `The plan of ${run} was already approved`;
    case 'plan_incomplete':
      // As the engine says it when asked (plan/planReview.ts).
      return `The plan of ${run} cannot start yet: ${planFindingsSentence(refusal.findings)}. Fill in what is missing or drop the task, then approve the plan`;
    case 'cancelled':
      return `${capital(run)} was cancelled`;
    case 'being_planned':
      return `${capital(run)} is still being planned`;
    case 'driven':
      return `${capital(run)} is running`;
    case 'phase':
      return `${capital(run)} is ${refusal.phase === 'awaitingApproval' ? 'waiting for its plan to be approved' : RUN_PHASE_WORDS[refusal.phase]}`;
    case 'applied':
      return `${capital(run)} was already applied to ${refusal.branch} (at ${refusal.commit.slice(0, 10)})`;
    case 'no_remote':
      return `The repository of ${run} has no remote named origin to push a pull request to`;
    case 'has_pull_request':
      return `${capital(run)} already has pull request #${refusal.number}`;
    case 'no_integration':
      return `${capital(run)} has no integrated work yet`;
    case 'resume':
      switch (refusal.outlook.kind) {
        case 'waitsForYou':
          return `${capital(run)} has nothing to resume: ${counted(refusal.outlook.tasks, 'task')} left ${refusal.outlook.tasks === 1 ? 'waits' : 'wait'} for your decision`;
        case 'choosesBaseline':
          return `${capital(run)} waits for your choice: ${baselineChoiceWords(refusal.outlook.commands)}`;
        default:
          return `${capital(run)} cannot be resumed: ${refusal.outlook.why}`;
      }
    case 'no_baseline_choice':
      return `${capital(run)} does not wait for a choice about its base: nothing fails there that a runner could not explain`;
  }
}

export function taskRefusalWords(task: Pick<TaskView, 'id' | 'state'>, action: TaskAction, refusal: TaskRefusal): string {
  switch (refusal.kind) {
    case 'not_started':
      return `Task "${task.id}" never started: it has no work to show`;
    case 'no_worktree':
      return `Task "${task.id}" has no worktree (it has not started, or its worktree was removed after merging)`;
    case 'not_at_work':
      return action === 'stop'
        ? `Task "${task.id}" has nothing to stop: it is ${TASK_STATE_WORDS[task.state]}`
        : `Task "${task.id}" cannot be taken over: it is ${TASK_STATE_WORDS[task.state]}`;
    default:
      return humanRefusalWords(task, action === 'handBack' ? 'continue' : (action as HumanAction), refusal);
  }
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
