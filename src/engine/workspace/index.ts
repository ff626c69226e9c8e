export { WorkspaceError } from './errors';
export { cleanGitEnv, createGit, gitTimings, type CreateGitOptions } from './git';
export { ensureExcluded, gitVersion, inspectRepo, type RepoInfo } from './repoInspector';
export { type WorktreeEntry } from './worktreeList';
export {
  WorktreeManager,
  type CleanupResult,
  type PreparedTaskWorktree,
  type PrepareTaskOptions,
  type RepoLocation,
} from './worktreeManager';
