import type { RunState } from '../domain/runState';
import { isBlocking, type CriticFinding } from '../domain/verdict';

/** A critic finding on a file, as the editor shows it in the Problems panel. */
export interface FileFinding {
  taskId: string;
  /** The ledger entry (the critic_verdict event) the finding belongs to. */
  seq: number;
  /** Relative to the repository root, with forward slashes. */
  file: string;
  line?: number;
  severity: CriticFinding['severity'];
  category: string;
  message: string;
  blocking: boolean;
}

/**
 * The findings on files of each task's latest critic verdict, in task order. Pure: the engine
 * server sends these, and the extension rebuilds the same list from a run's state.
 */
export function criticFindingsOf(state: RunState): FileFinding[] {
  const findings: FileFinding[] = [];
  for (const taskId of state.taskOrder) {
    const task = state.tasks[taskId];
    const verdict = task?.lastVerdict;
    const seq = task?.lastVerdictSeq;
    if (!verdict || seq === undefined) continue;
    for (const finding of verdict.findings) {
      const file = finding.file === undefined ? undefined : repoRelativePath(finding.file, [task.worktreePath, state.repoRoot]);
      if (file === undefined) continue;
      findings.push({
        taskId,
        seq,
        file,
        ...(finding.line !== undefined && finding.line > 0 ? { line: finding.line } : {}),
        severity: finding.severity,
        category: finding.category,
        message: finding.message,
        blocking: verdict.decision !== 'green' && isBlocking(finding),
      });
    }
  }
  return findings;
}

/**
 * A critic names files relative to the task's worktree, which mirrors the repository; an
 * absolute path inside the worktree (or the repository) is made relative. Anything else —
 * outside both, or stepping out with `..` — names no file of the repository.
 */
export function repoRelativePath(file: string, roots: Array<string | undefined>): string | undefined {
  let path = file.trim().replaceAll('\\', '/');
  if (path.startsWith('/')) {
    const root = roots.find((r) => r !== undefined && path.startsWith(`${r.replaceAll('\\', '/').replace(/\/$/, '')}/`));
    if (root === undefined) return undefined;
    path = path.slice(root.replaceAll('\\', '/').replace(/\/$/, '').length + 1);
  }
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..') || /^[A-Za-z]:$/.test(parts[0]!)) return undefined;
  return parts.join('/');
}
