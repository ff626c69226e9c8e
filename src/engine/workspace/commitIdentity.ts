import { WorkspaceError } from './errors';
import { Git, type GitObserver } from './git';

/** Who Taskloom's commits are by, and whether they are signed: the repository's own settings. */
export interface CommitIdentity {
  /** 'user': git resolves the author from the repository's config; 'taskloom': none is set, Taskloom's own is used. */
  source: 'user' | 'taskloom';
  /** commit.gpgsign is on: every commit Taskloom makes is signed (gpg.format says how), or it fails. */
  signs: boolean;
  format: string;
}

/** Reads the repository's identity and signing settings as git resolves them (its config, the user's, the system's). */
export async function resolveCommitIdentity(root: string, observer?: GitObserver): Promise<CommitIdentity> {
  const git = new Git(root, { taskloomIdentity: false, observer });
  // `config --get` exits 1 when the key is not set.
  const get = async (key: string) => (await git.run(['config', '--get', key], { accept: [0, 1] })).stdout.trim();
  const [email, sign, format] = await Promise.all([get('user.email'), get('commit.gpgsign'), get('gpg.format')]);
  const signs = ['true', 'yes', 'on', '1'].includes(sign.toLowerCase());
  return { source: email ? 'user' : 'taskloom', signs: email !== '' && signs, format: format || 'openpgp' };
}

/**
 * When the repository signs commits, signs a throwaway commit (of HEAD's tree, referenced by
 * nothing, so git's gc drops it) before any work starts: a signing setup that cannot sign (no key, a locked agent, a missing ssh-keygen) is a
 * clear error up front, never a run whose commits are silently left unsigned.
 */
export async function assertSigningWorks(root: string, identity: CommitIdentity): Promise<void> {
  if (!identity.signs) return;
  const git = new Git(root, { taskloomIdentity: false });
  try {
    await git.run(['commit-tree', '-S', '-m', 'taskloom: signing check', 'HEAD^{tree}']);
  } catch (error) {
    throw new WorkspaceError(
      `Your repository signs commits (commit.gpgsign, gpg.format ${identity.format}), and signing a test commit failed: ${(error as Error).message.trim()}`,
      'Fix signing (user.signingkey, the gpg or ssh agent), or turn commit.gpgsign off for this repository; Taskloom never makes unsigned commits where you sign.',
      { cause: error },
    );
  }
}
