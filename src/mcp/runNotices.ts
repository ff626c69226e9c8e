import type { RunEvent } from '../engine/domain/events';
import { RUN_STATUS_WORDS } from '../engine/domain/stateWords';
import { oneLine } from '../engine/text/clip';

/** A milestone of a run driven in the server's background, as an MCP log message (notifications/message). */
export interface RunNotice {
  level: 'info' | 'warning';
  text: string;
}

/**
 * The events of a run driven here that a client would act on, said with the tool to call: a task
 * that needs a person, a task merged, the run's end. Every other event is left to the trace
 * resource's updates, so a client's log is not a stream of agent steps.
 */
export function runNotice(runId: string, event: RunEvent): RunNotice | undefined {
  const state = `taskloom_runState { "runId": "${runId}" }`;
  if (event.type === 'task_transition' && event.to === 'NEEDS_HUMAN') {
    return { level: 'warning', text: `Run ${runId}: task ${event.taskId} needs you — ${oneLine(event.reason, 300)}. The choices: taskloom_needsYou { "runId": "${runId}" }.` };
  }
  if (event.type === 'task_transition' && event.to === 'MERGED') return { level: 'info', text: `Run ${runId}: task ${event.taskId} merged.` };
  if (event.type === 'run_finished') {
    const level = event.status === 'completed' ? 'info' : 'warning';
    return { level, text: `Run ${runId} ended ${RUN_STATUS_WORDS[event.status]}: ${oneLine(event.summary, 300)}. Where it stands: ${state}.` };
  }
  return undefined;
}
