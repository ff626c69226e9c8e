import { WorkspaceError } from './errors';
import { Git } from './git';
import { resolveCommit } from './gitQueries';

/** The content of `path` (relative to the repository root) at `commit`, or null when the commit has no such file. */
export async function readFileAtCommit(root: string, commit: string, path: string): Promise<string | null> {
  const git = new Git(root);
  if (!(await resolveCommit(git, commit))) {
    throw new WorkspaceError(`Unknown commit ${commit}`, 'It may belong to a run that was discarded.', { kind: 'bad_input' });
  }
  // `<mode> <type> <hash>\t<path>` for exactly that path, nothing when the commit has none.
  const entry = (await git.run(['ls-tree', '-z', '--full-tree', commit, '--', path])).stdout;
  const [, type, hash] = entry.split('\t')[0]!.split(' ');
  // A folder is a tree, a submodule a commit: only a blob is a file.
  if (type !== 'blob' || !hash) return null;
  return (await git.run(['cat-file', 'blob', hash])).stdout;
}
