// The way on from a run nobody drives, above the tabs: Resume where resume works on; for a run
// that never had an approved plan (resume is refused for it), Start Again with This Plan, Plan
// Again, and the plan planning rejected. Decided by the engine's resume rules
// (domain/resumeOutlook.ts), the same answer the tree's menus and the notifications use.
import type { ResumeOutlook } from '../../engine/domain/resumeOutlook';
import { RUN_PHASE_WORDS, type RunPhase } from '../../engine/domain/runPhase';
import type { RunState } from '../../engine/domain/runState';
import { counted } from '../../engine/text/counted';
import { controlButton } from './controlButton';
import { h, icon } from './dom';

/** The outlooks that have a step to offer here; a run whose tasks wait for you shows their rows instead. */
export type OfferedOutlook = Extract<ResumeOutlook, { kind: 'works' | 'startAgain' }>;

export const offersNextStep = (outlook: ResumeOutlook | undefined): outlook is OfferedOutlook => outlook?.kind === 'works' || outlook?.kind === 'startAgain';

export function nextStepBar(state: Pick<RunState, 'rejectedPlan'>, phase: RunPhase, outlook: OfferedOutlook): HTMLElement {
  if (outlook.kind === 'works') {
    const heading = `${RUN_PHASE_WORDS[phase][0]!.toUpperCase()}${RUN_PHASE_WORDS[phase].slice(1)}: `;
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

function bar(tone: string, codicon: string, heading: string, text: string, buttons: Array<HTMLElement | null>): HTMLElement {
  return h(
    'div',
    { class: `control-bar next-step ${tone}`, role: 'group', 'aria-label': 'What you can do now' },
    icon(codicon, 'control-icon'),
    h('span', { class: 'control-text' }, h('strong', {}, heading), text),
    h('span', { class: 'control-buttons' }, ...buttons),
  );
}
