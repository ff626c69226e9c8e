import { execFileSync } from 'node:child_process';

/**
 * What GitHub's merge button does to the scripted GitHub's bare repository: a merge commit of the
 * head into the base, or (squash) one commit of the merged tree on the base; the base moves to it.
 * The caller has checked that the two merge without a conflict. Answers the new commit.
 */
export function mergeInBare(bareRepo: string, pull: { base: string; head: string }, method: 'merge' | 'squash', title: string): string {
  // The test's own git, on the test's own bare repository: the remote the run pushes to.
  const git = (args: string[], env: NodeJS.ProcessEnv = {}) => execFileSync('git', ['--git-dir', bareRepo, ...args], { encoding: 'utf8', env: { ...process.env, ...env } }).trim();
  const tree = git(['merge-tree', '--write-tree', `refs/heads/${pull.base}`, `refs/heads/${pull.head}`]);
  const who = { GIT_AUTHOR_NAME: 'GitHub', GIT_AUTHOR_EMAIL: 'noreply@github.example', GIT_COMMITTER_NAME: 'GitHub', GIT_COMMITTER_EMAIL: 'noreply@github.example' };
  const parents = method === 'merge' ? ['-p', `refs/heads/${pull.base}`, '-p', `refs/heads/${pull.head}`] : ['-p', `refs/heads/${pull.base}`];
  const commit = git(['commit-tree', tree, ...parents, '-m', title], who);
  git(['update-ref', `refs/heads/${pull.base}`, commit]);
  return commit;
}
