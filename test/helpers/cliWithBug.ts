// A CLI whose command has a bug: it ends through the CLI's own way out (src/cli/cliProcess.ts), as
// `taskloom` does, with a plain Error no code meant for the user. exitCodes.test.ts runs it with
// `node --import tsx`, so the internal-error path is tested without a hook in the product.
import { exitWith } from '../../src/cli/cliProcess';

interface Run {
  state?: { status: string };
}

function statusOf(run: Run): string {
  if (!run.state) throw new TypeError('Cannot read the status of a run that has no state');
  return run.state.status;
}

exitWith(async () => (statusOf({}) === 'completed' ? 0 : 1));
