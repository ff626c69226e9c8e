// The run at a glance: goal, status, progress by state, cost and tokens, and why it stopped.
import type { RunState } from '../../engine/domain/runState';
import { RUN_PHASE_WORDS, runPhase } from '../../engine/domain/runPhase';
import { totalTokens } from '../../engine/domain/usage';
import { pullRequestSummaries, pullRequestWords } from '../../engine/report/traceReport';
import { actionAttrs } from './actions';
import { h, icon, s } from './dom';
import { formatTokens, formatUsd } from './format';
import { runProgress } from './runModel';
import { TASK_STATES } from '../../engine/domain/taskStates';
import { RUN_PHASE_TONE, TASK_STATE_LOOK, toneClass } from './stateStyle';
import { displayText, goalHeadline, oneLine } from './text';
import { counted } from '../../engine/text/counted';
import { ignoredInputWords } from '../../engine/text/decisionWords';
import { countSentence } from '../../engine/domain/taskCounts';
import { confinementLabel, confinementWords } from '../../engine/text/confinementWords';
import { confinementFacts } from '../../engine/domain/sandboxSettings';
import { undecidedBaselineFailures } from '../../engine/domain/gateProjection';
import { baselineWords, baseName, missedRegressionLines } from '../../engine/text/gateWords';

const INTERRUPTED_NOTE =
  'Nothing is running this run now: the engine or the window that drove it went away. Resume goes on where it stopped; nothing it recorded is lost.';

export class HeaderView {
  readonly element = h('header', { class: 'run-header' });
  /** Whether an engine drives the run: a live status without one is a run that stopped mid-step. */
  driven = true;

  render(state: RunState): void {
    const progress = runProgress(state);
    // The same phase as the tree and the status bar: a plan waiting for approval is not a run that went away.
    const phase = runPhase(state.status, this.driven, state);
    const status = { tone: RUN_PHASE_TONE[phase], label: RUN_PHASE_WORDS[phase] };
    const usage = state.usage.total;
    // Paused for a choice about its base, the run's way on (nextStepBar.ts) says the reason's words beside its buttons: not twice.
    const choosing = state.status === 'paused' && undecidedBaselineFailures(state).length > 0;
    const stopped = phase === 'stopped' ? INTERRUPTED_NOTE : choosing ? undefined : (state.pausedReason ?? state.finishedSummary);

    const bar = s('svg', { class: 'progress-bar', viewBox: '0 0 100 6', preserveAspectRatio: 'none', role: 'img', 'aria-label': countSentence(progress) });
    let x = 0;
    // Pending tasks are the bar's empty track, so a run that has not started shows an empty bar.
    for (const st of TASK_STATES) {
      const count = st === 'PENDING' ? 0 : progress.byState[st];
      if (!count || !progress.total) continue;
      const width = (count / progress.total) * 100;
      bar.append(
        s('rect', { class: `bar ${toneClass(TASK_STATE_LOOK[st].tone)}`, x, y: 0, width, height: 6 }, s('title', {}, `${count} ${TASK_STATE_LOOK[st].label}`)),
      );
      x += width;
    }

    const parts: Array<Node | null> = [
      h('h1', { class: 'run-goal', title: displayText(state.goal) }, oneLine(goalHeadline(state.goal), 400)),
      h(
        'div',
        { class: 'run-facts' },
        h('span', { class: `status-pill ${toneClass(status.tone)}` }, icon('circle-filled', 'status-dot'), status.label),
        // The count the run's end and the CLI say: merged of all, skipped apart (never "done" for both).
        h('span', { class: 'fact fact-count', title: countSentence(progress) }, h('strong', {}, `${progress.merged}/${progress.total}`), ' merged', progress.skipped ? `, ${progress.skipped} skipped` : ''),
        bar,
        h('span', { class: 'fact', title: 'Dollars spent by every agent call' }, icon('credit-card'), formatUsd(usage.costUsd)),
        h(
          'span',
          { class: 'fact', title: `${totalTokens(usage).toLocaleString('en-US')} tokens in ${counted(state.usage.calls, 'agent call')}` },
          icon('symbol-event'),
          `${formatTokens(totalTokens(usage))} tokens`,
        ),
        confinementFact(state),
        h('span', { class: 'fact muted', title: `Run ${state.runId}` }, state.runId),
        state.integration.branch
          ? h('button', { class: 'link', type: 'button', ...actionAttrs('integration-diff'), title: `Diff of ${state.integration.branch}` }, icon('git-compare'), 'integration diff')
          : null,
      ),
      stopped ? h('p', { class: `run-note ${toneClass(status.tone)}` }, oneLine(stopped, 600)) : null,
      gateNote(state),
      ...pullRequestSummaries(state).flatMap((pr) => [
        h(
          'p',
          { class: `run-pull-request ${pr.watch?.outcome === 'needs_human' || pr.escalatedSince ? 'tone-red' : ''}` },
          h('button', { class: 'link', type: 'button', ...actionAttrs('pull-request', { key: pr.taskId ?? '' }), title: pr.url }, icon('git-pull-request'), `Pull request #${pr.number}${pr.taskId ? ` (${pr.taskId})` : ''}`),
          ` ${pr.state ?? 'open'} · ${pullRequestWords(pr)}`,
          pr.watch?.outcome === 'needs_human' ? ` · needs you: ${oneLine(pr.watch.reason, 300)}` : '',
        ),
        // What watch left alone on it: who wrote it, what, and why it did not reach an agent.
        pr.ignored.length
          ? h(
              'details',
              { class: 'run-ignored-input' },
              h('summary', {}, icon('shield'), `Pull request #${pr.number}: ${counted(pr.ignored.length, 'input')} ignored`),
              h('ul', {}, ...pr.ignored.slice(-50).map((i) => h('li', {}, oneLine(`${ignoredInputWords(i)}${i.excerpt ? ` — "${i.excerpt}"` : ''}`, 600)))),
            )
          : null,
      ]),
      state.warnings.length
        ? h(
            'details',
            { class: 'run-warnings' },
            h('summary', {}, icon('warning'), `${counted(state.warnings.length, 'warning')}`),
            h('ul', {}, ...state.warnings.slice(-50).map((w) => h('li', {}, oneLine(w, 600)))),
          )
        : null,
    ];
    this.element.replaceChildren(...parts.filter((p): p is Node => p !== null));
  }
}

/**
 * How the gate judges this run, once its base was gated: the baseline in a line (what already fails
 * there is no task's), open when a command waits for the user's choice; and the regressions the
 * integration gate caught that narrower task gates had not run.
 */
function gateNote(state: RunState): Node | null {
  if (!state.baseline && !state.missedRegressions) return null;
  const base = baseName(state);
  const baseline = state.baseline ? baselineWords(state.baseline, base) : undefined;
  const missed = state.missedRegressions ? `${counted(state.missedRegressions, 'missed regression')}: the integration gate caught what the task gates did not run` : undefined;
  const lines = [...(baseline?.lines ?? []), ...(missed ? missedRegressionLines(state) : [])];
  const waits = undecidedBaselineFailures(state).length > 0;
  const tone = missed ? 'tone-red' : waits ? 'tone-yellow' : 'muted';
  const summary = [baseline ? `Baseline: ${baseline.summary}` : '', missed ?? ''].filter(Boolean).join(' · ');
  if (lines.length === 0) return h('p', { class: 'run-gate muted' }, icon('beaker'), oneLine(summary, 600));
  return h(
    'details',
    { class: `run-gate ${tone}`, open: waits || missed !== undefined },
    h('summary', {}, icon('beaker'), oneLine(summary, 600)),
    h('ul', {}, ...lines.slice(0, 50).map((line) => h('li', {}, oneLine(line, 600)))),
  );
}

/** Whether the run's processes were confined in its latest session: unconfined stands out. Absent before a session recorded it. */
function confinementFact(state: RunState): Node | null {
  if (!state.confinement) return null;
  const facts = confinementFacts(state.confinement);
  return h(
    'span',
    { class: `fact ${facts.confined ? 'muted' : 'tone-red'}`, title: confinementWords(facts) },
    icon(facts.confined ? 'lock' : 'unlock'),
    confinementLabel(facts),
  );
}
