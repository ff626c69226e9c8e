// A task's candidates side by side, under its row in the controls: one card each (candidateCards.ts
// says what), with its diff and "Choose this one", which runs the same command as the quick pick.
import type { TaskView } from '../../engine/domain/runState';
import { candidateCards, candidateChoiceRefusal, type CandidateCard } from './candidateCards';
import { controlButton as button } from './controlButton';
import { h, icon } from './dom';
import { displayText, oneLine } from './text';

/** More changed files than this on a card are counted, not listed. */
const MAX_FILES = 6;

const GATE_LOOK: Record<CandidateCard['gate'], { icon: string; tone: string }> = {
  passed: { icon: 'pass-filled', tone: 'tone-green' },
  failed: { icon: 'error', tone: 'tone-red' },
  broken: { icon: 'warning', tone: 'tone-red' },
  running: { icon: 'loading', tone: 'tone-blue' },
};

/** The section of `task`'s candidates (it ran as candidates: candidateCards is not empty). */
export function candidatesSection(task: TaskView): HTMLElement {
  const skipped = task.candidates?.skipped ?? [];
  const closed = candidateChoiceRefusal(task);
  return h(
    'section',
    { class: 'candidates', 'aria-label': `Candidates of ${task.id}`, 'data-candidates-task': task.id },
    h('h3', { class: 'candidates-title' }, icon('versions'), ` Candidates of ${oneLine(task.id, 60)}`),
    closed ? h('p', { class: 'muted candidate-refusal' }, closed) : null,
    h('div', { class: 'candidate-cards' }, ...candidateCards(task).map((card) => cardOf(task.id, card, closed))),
    ...skipped.map((s) => h('p', { class: 'muted candidate-skipped' }, `Candidate ${s.candidate} not started: ${oneLine(s.reason, 240)}`)),
  );
}

/** `closed`: why no candidate may be chosen now, said once above the cards. */
function cardOf(taskId: string, card: CandidateCard, closed: string | undefined): HTMLElement {
  const gate = GATE_LOOK[card.gate];
  const files = card.filesChanged.slice(0, MAX_FILES);
  const more = card.filesChanged.length - files.length;
  return h(
    'article',
    { class: `candidate-card${card.pick ? ' picked' : ''}`, 'data-candidate': card.candidate, 'aria-label': `Candidate ${card.candidate}` },
    h(
      'header',
      { class: 'candidate-head' },
      h('strong', {}, `Candidate ${card.candidate}`),
      card.pick ? h('span', { class: 'candidate-badge picked-badge' }, icon('star-full'), ` picked by ${card.pick.by}`) : null,
      card.reachable ? h('span', { class: 'candidate-badge muted', title: `On ${card.branch}` }, 'reachable until discard') : null,
    ),
    h('div', { class: 'candidate-agent' }, icon('hubot'), ` ${oneLine(card.builtBy, 80)}`, h('span', { class: 'muted' }, ` · ${card.cost}`)),
    h('div', { class: `candidate-gate ${gate.tone}` }, icon(gate.icon, `control-icon${card.gate === 'running' ? ' codicon-modifier-spin' : ''}`), ` ${oneLine(card.gateLine, 300)}`),
    files.length
      ? h('ul', { class: 'candidate-files' }, ...files.map((f) => h('li', {}, oneLine(f, 120))), more > 0 ? h('li', { class: 'muted' }, `and ${more} more`) : null)
      : h('p', { class: 'muted candidate-files' }, 'No files changed'),
    card.pick ? h('blockquote', { class: 'candidate-reasons' }, displayText(card.pick.reasons)) : null,
    h(
      'div',
      { class: 'control-buttons' },
      button(
        card.goOn ? 'Go On with the Pick' : 'Choose This One',
        card.goOn ? 'arrow-right' : 'check',
        'choose-candidate',
        { taskId, candidate: card.candidate },
        // The pick's own button is secondary, unless it waits for you: choosing it again only retries it.
        card.chooseRefusal
          ? { disabled: true, secondary: card.pick !== undefined, title: card.chooseRefusal }
          : card.goOn
            ? { title: `Go on with candidate ${card.candidate}: it is gated, reviewed and merged` }
            : { secondary: card.pick !== undefined, title: `Take candidate ${card.candidate}: it is gated, reviewed and merged instead` },
      ),
      card.hasWork ? button('Diff', 'diff', 'diff', { taskId, candidate: card.candidate }, { secondary: true, title: `What candidate ${card.candidate} changed` }) : null,
    ),
    card.chooseRefusal && card.chooseRefusal !== closed ? h('p', { class: 'muted candidate-refusal' }, card.chooseRefusal) : null,
  );
}
