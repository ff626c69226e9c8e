// The way on from a run nobody drives, above the tabs: Resume where resume works on; for a run
// whose base fails a gate command no runner explained, the choice it waits for: Treat as Advisory
// or Keep as Required (each resumes it), or Cancel Run; for a run that never had an approved plan
// (resume is refused for it), Start Again with This Plan, Plan Again, and the plan planning
// rejected. Decided by the engine's resume rules (domain/resumeOutlook.ts), the same answer the
// tree's menus and the notifications use.
import type { ResumeOutlook } from '../../engine/domain/resumeOutlook';
import { RUN_PHASE_WORDS, type RunPhase } from '../../engine/domain/runPhase';
import type { RunState } from '../../engine/domain/runState';
import { counted } from '../../engine/text/counted';
import { baselineChoiceWords, baseName } from '../../engine/text/gateWords';
import { controlButton } from './controlButton';
import { h, icon } from './dom';

/** The outlooks that have a step to offer here; a run whose tasks wait for you shows their rows instead. */
export type OfferedOutlook = Extract<ResumeOutlook, { kind: 'works' | 'choosesBaseline' | 'startAgain' }>;

export const offersNextStep = (outlook: ResumeOutlook | undefined): outlook is OfferedOutlook =>
  outlook?.kind === 'works' || outlook?.kind === 'choosesBaseline' || outlook?.kind === 'startAgain';

export function nextStepBar(state: Pick<RunState, 'rejectedPlan' | 'status' | 'baseRef' | 'baseCommit'>, phase: RunPhase, outlook: OfferedOutlook): HTMLElement {
  if (outlook.kind === 'choosesBaseline') {
    const [these, them] = outlook.commands.length === 1 ? ['this command', 'it'] : ['these commands', 'them'];
    return bar('tone-yellow', 'debug-pause', `${phaseHeading(phase)}: `, `${capital(baselineChoiceWords(outlook.commands, baseName(state)))}.`, [
      controlButton('Treat as Advisory', 'debug-continue', 'next-step', { choice: 'treatAsAdvisory' }, { title: `Count ${these} as advisory for this run, and resume` }),
      controlButton('Keep as Required', 'checklist', 'next-step', { choice: 'keepAsRequired' }, { secondary: true, title: `Keep ${these} as checks of work still to be done: the tasks must make ${them} pass. Resume` }),
      state.status === 'paused' ? controlButton('Cancel Run', 'close', 'next-step', { choice: 'cancelRun' }, { secondary: true, title: 'Stop the run here (it stays resumable)' }) : null,
    ]);
  }
  if (outlook.kind === 'works') {
    const heading = `${phaseHeading(phase)}: `;
    const what = outlook.tasks > 0 ? `Resume goes on with ${counted(outlook.tasks, 'task')}, keeping what is done.` : 'Resume finishes the integration.';
    return bar('tone-yellow', 'debug-pause', heading, what, [
      controlButton('Resume', 'debug-continue', 'next-step', { choice: 'resume' }, { title: 'Go on where the run stopped' }),
    ]);
  }
  const buttons = outlook.withPlan
    ? [
        controlButton('Start Again with This Plan', 'debug-restart', 'next-step', { choice: 'startWithPlan' }, { title: 'A new run from this plan, which waits for your approval' }),
        controlButton('Plan Again', 'lightbulb-sparkle', 'next-step', { choice: 'planAgain' }, { secondary: true, title: 'Plan the same goal anew' }),
      ]
    : [
        controlButton('Plan Again', 'lightbulb-sparkle', 'next-step', { choice: 'planAgain' }, { title: 'Plan the same goal anew' }),
        state.rejectedPlan !== undefined
          ? controlButton('Open Rejected Plan', 'go-to-file', 'next-step', { choice: 'openRejectedPlan' }, { secondary: true, title: 'The planner’s plan with its problems: fix it and start a run from it' })
          : null,
      ];
  return bar('tone-red', 'debug-restart', 'Cannot be resumed: ', `${outlook.why}. Start it again:`, buttons);
}

const capital = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
const phaseHeading = (phase: RunPhase): string => capital(RUN_PHASE_WORDS[phase]);

function bar(tone: string, codicon: string, heading: string, text: string, buttons: Array<HTMLElement | null>): HTMLElement {
  return h(
    'div',
    { class: `control-bar next-step ${tone}`, role: 'group', 'aria-label': 'What you can do now' },
    icon(codicon, 'control-icon'),
    h('span', { class: 'control-text' }, h('strong', {}, heading), text),
    h('span', { class: 'control-buttons' }, ...buttons),
  );
}
