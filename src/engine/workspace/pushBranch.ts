import { WorkspaceError } from './errors';
import { Git, type GitResult } from './git';

/**
 * Pushes `commit` to `remote` as `branch`, and says exactly what git did with it, read from `git
 * push --porcelain` (a flag per ref, on stdout whether or not the push succeeded), never from its
 * prose: a rejected push (someone else's commits on the branch) is a clear error, and nothing is
 * forced over them.
 */
export async function pushBranch(root: string, remote: string, commit: string, branch: string): Promise<'pushed' | 'up-to-date'> {
  const git = new Git(root, { taskloomIdentity: false });
  const failed = (detail: string, cause?: unknown): WorkspaceError =>
    new WorkspaceError(`Pushing ${branch} to ${remote} failed: ${detail}`, 'Check that the remote exists and that you can push to it.', { cause });
  let pushed: GitResult;
  try {
    // Exit 1: a ref was refused (its flag says why); any other failure pushed nothing at all.
    pushed = await git.run(['push', '--porcelain', remote, `${commit}:refs/heads/${branch}`], { accept: [0, 1] });
  } catch (error) {
    throw failed((error as Error).message, error);
  }
  const line = pushed.stdout.split('\n').find((l) => l.includes(`refs/heads/${branch}`));
  const flag = line?.[0];
  if (flag === '!') {
    const why = line!.split('\t')[2]?.trim() ?? 'rejected';
    throw new WorkspaceError(
      `${remote} refused the push of ${branch}: ${why}`,
      `The branch on ${remote} has commits the run does not (someone pushed to it): fetch it to look at them; Taskloom does not force over them.`,
      { next: [{ kind: 'fetchBranch', remote, branch }] },
    );
  }
  if (pushed.exitCode === 0 && flag === '=') return 'up-to-date';
  if (pushed.exitCode === 0 && (flag === ' ' || flag === '+' || flag === '*')) return 'pushed';
  throw failed(pushed.stderr.trim() || pushed.stdout.trim());
}

/**
 * The URL of a remote as configured, or undefined when there is no such remote. Read from the
 * config rather than `git remote get-url`, which applies `url.*.insteadOf` rewrites: the configured
 * URL is the one that names the forge's repository.
 */
export async function remoteUrl(root: string, remote: string): Promise<string | undefined> {
  // Exit 1: no such key, so no such remote.
  const { stdout } = await new Git(root, { taskloomIdentity: false }).run(['config', '--get', `remote.${remote}.url`], { accept: [0, 1] });
  return stdout.trim() || undefined;
}
