import { userInfo } from 'node:os';
import { displayLine } from '../text/terminalText';
import { Git } from './git';

/**
 * Who a person is, as a message from them names them (`taskloom send`): their git user.name, else
 * their login. Only a label: shown in the ledger and quoted to the agent, never acted on.
 */
export async function personName(repoRoot: string): Promise<string> {
  const git = new Git(repoRoot, { taskloomIdentity: false });
  // `config --get` exits 1 when the key is not set.
  const name = (await git.run(['config', '--get', 'user.name'], { accept: [0, 1] })).stdout.trim();
  return displayLine(name || loginName(), MAX_NAME_CHARS);
}

const MAX_NAME_CHARS = 100;

function loginName(): string {
  try {
    return userInfo().username || 'you';
  } catch {
    // A uid with no passwd entry (a container): nothing names it.
    return 'you';
  }
}
