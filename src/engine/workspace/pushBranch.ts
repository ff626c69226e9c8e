import { WorkspaceError } from './errors';
import { createGit } from './git';

/**
 * Pushes `commit` to `remote` as `branch`, and says exactly what git did with it, read from `git
 * push --porcelain` (a flag per ref), never from its prose: a rejected push (someone else's commits
 * on the branch) is a clear error, and nothing is forced over them.
 */
export async function pushBranch(root: string, remote: string, commit: string, branch: string): Promise<'pushed' | 'up-to-date'> {
  const git = createGit(root, { taskloomIdentity: false });
  let output = '';
  let failure: unknown;
  try {
    output = await git.raw(['push', '--porcelain', remote, `${commit}:refs/heads/${branch}`]);
  } catch (error) {
    failure = error;
    output = (error as Error).message;
  }
  const line = output.split('\n').find((l) => l.includes(`refs/heads/${branch}`));
  const flag = line?.[0];
  if (flag === '=') return 'up-to-date';
  if (flag === ' ' || flag === '+' || flag === '*') return 'pushed';
  if (flag === '!') {
    const why = line!.split('\t')[2]?.trim() ?? 'rejected';
    throw new WorkspaceError(
      `${remote} refused the push of ${branch}: ${why}`,
      `The branch on ${remote} has commits the run does not (someone pushed to it). Look at them with: git fetch ${remote} ${branch}; Taskloom does not force over them.`,
    );
  }
  throw new WorkspaceError(
    `Pushing ${branch} to ${remote} failed: ${(failure as Error | undefined)?.message.trim() ?? output.trim()}`,
    `Check that the remote exists (git remote -v) and that you can push to it.`,
    { cause: failure },
  );
}

/**
 * The URL of a remote as configured, or undefined when there is no such remote. Read from the
 * config rather than `git remote get-url`, which applies `url.*.insteadOf` rewrites: the configured
 * URL is the one that names the forge's repository.
 */
export async function remoteUrl(root: string, remote: string): Promise<string | undefined> {
  const url = await createGit(root, { taskloomIdentity: false })
    .raw(['config', '--get', `remote.${remote}.url`])
    .catch(() => '');
  return url.trim() || undefined;
}
