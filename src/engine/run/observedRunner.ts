import type { AgentRunner, RunnerActivity, RunnerInput } from '../agents/runner';
import { redactSecrets } from '../io/redactSecrets';
import { relativeToCwd } from '../session/transcriptRecorder';

/** Hears every activity line of every call a runner makes, with the call it came from. */
export type ActivityListener = (input: RunnerInput, activity: RunnerActivity) => void;

/**
 * The runner, with its activity also handed to `listener` (the engine server forwards it to
 * the editor). The engine's own calls pass no activity callback, so this is where it is heard.
 */
export function observedRunner(runner: AgentRunner, listener: ActivityListener): AgentRunner {
  return {
    name: runner.name,
    run: (input, onActivity) =>
      runner.run(input, (activity) => {
        onActivity?.(activity);
        try {
          // Live lines go to the editor's output channel, never through the store: redact them here.
          listener(input, { ...activity, message: redactSecrets(relativeToCwd(activity.message, input.cwd)) });
        } catch {
          // A listener's failure is not the agent's.
        }
      }),
  };
}
