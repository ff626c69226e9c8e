// The decisions the run waits for, where the user looks: Approve / Edit / Cancel on a plan
// waiting for approval (Fill In… / Drop on each task it leaves incomplete), Retry / Accept / Skip
// / Resolve / Continue on the tasks waiting for a decision (and on the task picked), Apply / Open
// Pull Request on a completed run, Stop This Task / Take Over on a task at work picked (Hand Back
// once it is yours), and the way on from a stopped run (nextStepBar.ts): each only
// where it applies, by the rules the tree's menus and the commands use (domain/runActions.ts); a
// task's candidates side by side under its row (candidatesView.ts).
// Each button posts a message; the extension runs the same command the tree and the palette run,
// confirmations and a check that it still applies included.
import { planTaskFindings, type PlanTaskFinding } from '../../engine/domain/planFindings';
import { allowedRunActions, allowedTaskActions, phaseOf, resumeOutlookOfRun, TASK_DECISIONS, taskActionRefusal, type RunFacts, type TaskDecision } from '../../engine/domain/runActions';
import type { RunState, TaskView } from '../../engine/domain/runState';
import { isWaitingForHuman } from '../../engine/domain/taskStates';
import { candidateChoiceOpen } from '../../engine/domain/candidates';
import { actionAttrs } from './actions';
import { candidatesSection } from './candidatesView';
import { controlButton as button } from './controlButton';
import { h, icon } from './dom';
import { nextStepBar, offersNextStep } from './nextStepBar';
import { TASK_STATE_LOOK, toneClass } from './stateStyle';
import { oneLine } from './text';
import { counted } from '../../engine/text/counted';

const ACTION_LOOK: Record<TaskDecision, { label: string; icon: string; title: string }> = {
  retry: { label: 'Retry…', icon: 'debug-rerun', title: 'Run the task again, with a note for the agent' },
  resolve: { label: 'Resolve by Hand', icon: 'git-compare', title: 'Resolve the conflict yourself in the merge editor' },
  continue: { label: 'Continue', icon: 'check-all', title: 'Check your resolution with the gate and merge it' },
  handBack: { label: 'Hand Back', icon: 'check-all', title: 'Commit what is in its worktree, have the gate and the critic check it, and carry on' },
  accept: { label: 'Accept…', icon: 'check', title: 'Take the work as it is, without passing review' },
  skip: { label: 'Skip…', icon: 'debug-step-over', title: 'Leave the task out of the run' },
  stop: { label: 'Stop This Task', icon: 'debug-stop', title: 'Stop its agent, gate or critic: it waits for you, the rest of the run goes on' },
  takeOver: { label: 'Take Over', icon: 'terminal', title: 'Work on it yourself: its agent\'s own session, resumed in a terminal in its worktree' },
};
/** More tasks than this waiting for a decision are counted, not listed. */
const MAX_TASK_ROWS = 8;

interface Part {
  id: string;
  /** What the part shows: it is built again only when this changes. */
  key: string;
  build(): HTMLElement;
}

export class ControlsView {
  readonly element = h('section', { class: 'run-controls', 'aria-label': 'Decisions' });
  private readonly built = new Map<string, { key: string; element: HTMLElement }>();

  /**
   * `run`: the run's facts (whether an engine drives it: without one, a run is stopped and offers its
   * way on). `selected`: the task the user picked (in the graph, the timeline or by a link), shown
   * first with what it allows.
   */
  render(run: RunFacts & { state: RunState }, selected: string | undefined): void {
    const { state } = run;
    // Only tasks that wait for a decision: a skipped task needs nothing, though it may be retried.
    const waiting = state.taskOrder.map((id) => state.tasks[id]).filter((t): t is TaskView => !!t && isWaitingForHuman(t.state));
    const selectedTask = selected !== undefined ? state.tasks[selected] : undefined;
    const rows = selectedTask ? [selectedTask, ...waiting.filter((t) => t.id !== selectedTask.id)] : waiting;
    const shown = rows.slice(0, MAX_TASK_ROWS);
    const hidden = rows.length - shown.length;
    const awaiting = planAwaitingApproval(state);
    const findings = awaiting ? planTaskFindings(state.plan) : [];
    const outlook = resumeOutlookOfRun(run);
    const phase = phaseOf(run);
    const parts: Part[] = [
      ...(awaiting ? [{ id: 'plan', key: JSON.stringify([state.plan.tasks.length, findings.length]), build: () => planBar(state, findings.length) }] : []),
      ...findings.map((finding) => ({ id: `finding:${finding.taskId}:${finding.field}`, key: '', build: () => findingRow(finding) })),
      ...(offersNextStep(outlook)
        ? [{ id: 'next', key: JSON.stringify([phase, outlook, state.rejectedPlan !== undefined]), build: () => nextStepBar(state, phase, outlook) }]
        : []),
      ...(state.status === 'completed'
        ? [{ id: 'delivery', key: JSON.stringify([state.integration.merged.length, state.integration.branch, state.applied, allowedRunActions(run)]), build: () => deliveryBar(run) }]
        : []),
      ...shown.flatMap((task) => [
        {
          id: `task:${task.id}`,
          key: JSON.stringify([task.state, task.lastReason, allowedTaskActions(task), task.id === selected, candidateChoiceOpen(task)]),
          build: () => taskRow(task, task.id === selected),
        },
        // Side by side under the task picked, or one whose candidates wait for a person's choice.
        ...(task.candidates?.entries.length && (task.id === selected || candidateChoiceOpen(task))
          ? [{ id: `candidates:${task.id}`, key: JSON.stringify([task.state, task.queueProblem, task.candidates]), build: () => candidatesSection(task) }]
          : []),
      ]),
      ...(hidden > 0 ? [{ id: 'more', key: String(hidden), build: () => h('p', { class: 'muted controls-more' }, `${counted(hidden, 'more task')} ${hidden === 1 ? 'waits' : 'wait'} for your decision: see Needs You, or the graph.`) }] : []),
    ];
    this.show(parts);
  }

  /**
   * Builds only the parts that changed and leaves the others where they are: a live run sends
   * events all the time, and a button rebuilt between the press and the release of a click
   * would swallow it.
   */
  private show(parts: Part[]): void {
    const elements = parts.map((part) => {
      const previous = this.built.get(part.id);
      if (previous?.key === part.key) return previous.element;
      const element = part.build();
      this.built.set(part.id, { key: part.key, element });
      return element;
    });
    const keep = new Set(elements);
    for (const id of [...this.built.keys()]) if (!parts.some((p) => p.id === id)) this.built.delete(id);
    for (const child of [...this.element.children]) if (!keep.has(child as HTMLElement)) child.remove();
    elements.forEach((element, i) => {
      const at = this.element.children[i];
      if (at !== element) this.element.insertBefore(element, at ?? null);
    });
    this.element.hidden = elements.length === 0;
  }
}

/** The planner's draft is in and nobody has approved it (autopilot approves by itself). */
export function planAwaitingApproval(state: Pick<RunState, 'status' | 'planApproved' | 'plan'>): boolean {
  return state.status === 'planning' && !state.planApproved && state.plan.tasks.length > 0;
}

/** `incomplete`: tasks left to fill in or drop (planFindings.ts); until then the plan cannot be approved. */
function planBar(state: RunState, incomplete: number): HTMLElement {
  const tasks = state.plan.tasks.length;
  return h(
    'div',
    { class: 'control-bar plan-waiting tone-yellow', role: 'group', 'aria-label': 'Plan approval' },
    icon('checklist', 'control-icon'),
    h(
      'span',
      { class: 'control-text' },
      h('strong', {}, 'The plan waits for your approval: '),
      `${tasks} task${tasks === 1 ? '' : 's'}, drawn in the graph below. `,
      incomplete ? `Fill in or drop ${incomplete === 1 ? 'the task' : `the ${incomplete} tasks`} below first. ` : '',
      h('button', { class: 'link', type: 'button', ...actionAttrs('plan-document'), title: 'Descriptions, acceptance criteria and predicted overlaps' }, icon('markdown'), 'plan as text'),
    ),
    h(
      'span',
      { class: 'control-buttons' },
      button('Approve', 'pass', 'plan', { choice: 'approve' }, incomplete ? { disabled: true, title: 'Fill in or drop the incomplete tasks first' } : { title: 'Start the run with this plan' }),
      button('Edit Plan', 'edit', 'plan', { choice: 'edit' }, { secondary: true, title: 'Open the plan as JSON; Taskloom checks it on every save' }),
      button('Cancel Run', 'close', 'plan', { choice: 'cancel' }, { secondary: true, title: 'Do not run this plan' }),
    ),
  );
}

/** A task the planner left incomplete: what is missing, and the two ways to settle it. */
function findingRow(finding: PlanTaskFinding): HTMLElement {
  return h(
    'div',
    { class: 'control-bar plan-finding tone-red', role: 'group', 'aria-label': `Task ${finding.taskId}`, 'data-finding-task': finding.taskId },
    icon('warning', 'control-icon'),
    h(
      'span',
      { class: 'control-text' },
      h('button', { class: 'link task-link', type: 'button', ...actionAttrs('reveal', { taskId: finding.taskId }), title: `Reveal ${finding.taskId} in the Runs tree` }, oneLine(finding.taskId, 60)),
      ` has no ${finding.field}: the actor would not know what to build.`,
    ),
    h(
      'span',
      { class: 'control-buttons' },
      button(`Fill In ${finding.field === 'title' ? 'Title' : 'Description'}…`, 'edit', 'fix-plan', { taskId: finding.taskId, choice: 'fill' }, { title: `Type the ${finding.field} of ${finding.taskId}` }),
      button('Drop Task', 'trash', 'fix-plan', { taskId: finding.taskId, choice: 'drop' }, { secondary: true, title: `Leave ${finding.taskId} out of the plan` }),
    ),
  );
}

/**
 * A completed run's next steps, each only where it applies: Apply until the run is applied (then
 * the bar says where), Open Pull Request while the repository has a remote and the run no pull
 * request. The first step offered is the primary one.
 */
function deliveryBar(run: RunFacts & { state: RunState }): HTMLElement {
  const { state } = run;
  const merged = state.integration.merged.length;
  const applied = state.applied ? ` Applied to ${state.applied.branch} (at ${state.applied.commit.slice(0, 10)}).` : '';
  const allowed = allowedRunActions(run);
  const steps = [
    allowed.includes('apply') ? { label: 'Apply…', icon: 'git-merge', choice: 'apply', title: 'Merge the run into your current branch' } : undefined,
    allowed.includes('openPullRequest') ? { label: 'Open Pull Request', icon: 'git-pull-request-create', choice: 'pullRequest', title: 'Push the run and open its pull request' } : undefined,
  ].filter((step) => step !== undefined);
  return h(
    'div',
    { class: 'control-bar run-delivery tone-green', role: 'group', 'aria-label': 'Deliver the run' },
    icon('pass-filled', 'control-icon'),
    h('span', { class: 'control-text' }, h('strong', {}, 'Completed: '), `${merged} task${merged === 1 ? '' : 's'} merged on ${state.integration.branch ?? 'the integration branch'}.${applied}`),
    h(
      'span',
      { class: 'control-buttons' },
      button('Review Diff', 'git-compare', 'integration-diff', {}, { secondary: steps.length > 0, title: 'The whole run’s changes in the diff editor' }),
      ...steps.map((step, i) => button(step.label, step.icon, 'deliver', { choice: step.choice }, { secondary: i > 0, title: step.title })),
    ),
  );
}

function taskRow(task: TaskView, selected: boolean): HTMLElement {
  const look = TASK_STATE_LOOK[task.state];
  const allowed = allowedTaskActions(task);
  const actions = TASK_DECISIONS.filter((action) => allowed.includes(action));
  return h(
    'div',
    { class: `control-bar task-control ${toneClass(look.tone)}${selected ? ' selected' : ''}`, role: 'group', 'aria-label': `Task ${task.id}`, 'data-control-task': task.id },
    icon(look.icon, 'control-icon'),
    h(
      'span',
      { class: 'control-text' },
      h('button', { class: 'link task-link', type: 'button', ...actionAttrs('reveal', { taskId: task.id }), title: `Reveal ${task.id} in the Runs tree` }, oneLine(task.id, 60)),
      ` ${look.label}`,
      task.lastReason ? h('span', { class: 'muted' }, ` — ${oneLine(task.lastReason, 240)}`) : null,
    ),
    h(
      'span',
      { class: 'control-buttons' },
      ...actions.map((action, i) => {
        const a = ACTION_LOOK[action];
        return button(a.label, a.icon, 'decide', { taskId: task.id, choice: action }, { title: a.title, secondary: i > 0 });
      }),
      candidateChoiceOpen(task)
        ? button('Choose Candidate…', 'versions', 'choose-candidate', { taskId: task.id }, { secondary: true, title: `Compare the candidates of ${task.id} and take another` })
        : null,
      taskActionRefusal('diff', task) ? null : button('Diff', 'diff', 'diff', { taskId: task.id }, { secondary: true, title: `Open the diff of ${task.id}` }),
    ),
  );
}
