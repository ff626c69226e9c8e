import * as vscode from 'vscode';
import type { FileFinding } from '../engine/report/criticFindings';
import type { RunsController } from './runsController';
import { branchFileUri } from './documents/branchFileDocuments';
import { Disposable, toDisposable } from './disposable';
import { commandUri } from './runCommand';
import { openFindingsOf, waitsForYou } from './openFindings';

const SEVERITY: Record<FileFinding['severity'], vscode.DiagnosticSeverity> = {
  blocker: vscode.DiagnosticSeverity.Error,
  major: vscode.DiagnosticSeverity.Warning,
  minor: vscode.DiagnosticSeverity.Information,
  nit: vscode.DiagnosticSeverity.Hint,
};

const key = (folder: string, runId: string) => `${folder}\u0000${runId}`;

/**
 * The open critic findings of every run in the Problems panel, each on the file as it stands on
 * its task's branch. Built from the runs' states as they fold (not the language client's
 * diagnostics), so it survives engine restarts; a run stopped for you is loaded for its findings.
 */
export class CriticDiagnostics extends Disposable {
  private readonly collection = this._register(vscode.languages.createDiagnosticCollection('taskloom'));
  private readonly byRun = new Map<string, { folder: string; runId: string; findings: FileFinding[] }>();
  private readonly requested = new Set<string>();

  constructor(private readonly controller: RunsController) {
    super();
    this._register(toDisposable(controller.model.onDidChange((change) => {
      let changed = change.folders.size > 0 && this.forgetRemovedRuns();
      for (const run of change.runs) if (this.update(run.folder, run.runId)) changed = true;
      for (const folder of change.folders) for (const entry of controller.model.runs(folder)) if (this.update(folder, entry.summary.runId)) changed = true;
      if (changed) this.rebuild();
    })));
  }

  /** Recomputes one run's findings; true when they changed. */
  private update(folder: string, runId: string): boolean {
    const entry = this.controller.model.run(folder, runId);
    if (entry && !entry.state && waitsForYou(entry.summary.status) && !this.requested.has(key(folder, runId))) {
      this.requested.add(key(folder, runId));
      void this.controller.state(folder, runId);
    }
    const previous = this.byRun.get(key(folder, runId));
    // Most event batches touch runs without a single finding: they cost a glance at the tasks.
    if (!previous && (!entry?.state || !Object.values(entry.state.tasks).some((t) => t.lastVerdict?.findings.length))) return false;
    const findings = entry?.state ? openFindingsOf(entry.state) : entry ? (previous?.findings ?? []) : [];
    if (JSON.stringify(previous?.findings ?? []) === JSON.stringify(findings)) return false;
    if (findings.length) this.byRun.set(key(folder, runId), { folder, runId, findings });
    else this.byRun.delete(key(folder, runId));
    return true;
  }

  /** A discarded run (or a folder closed) takes its findings with it. */
  private forgetRemovedRuns(): boolean {
    let removed = false;
    for (const [id, { folder, runId }] of this.byRun) {
      if (this.controller.model.run(folder, runId)) continue;
      this.byRun.delete(id);
      removed = true;
    }
    return removed;
  }

  private rebuild(): void {
    const byFile = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
    for (const { folder, runId, findings } of this.byRun.values()) {
      for (const f of findings) {
        const line = Math.max(0, (f.line ?? 1) - 1);
        const diagnostic = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), `[${f.taskId}] ${f.message}`, SEVERITY[f.severity]);
        diagnostic.source = `Taskloom critic (${f.category}${f.blocking ? ', blocking' : ''})`;
        diagnostic.code = { value: `ledger #${f.seq}`, target: commandUri('taskloom.showRun', { folder, runId, taskId: f.taskId, seq: f.seq }) };
        const uri = branchFileUri({ folder, runId, taskId: f.taskId }, f.file);
        const entry = byFile.get(uri.toString()) ?? { uri, diagnostics: [] };
        entry.diagnostics.push(diagnostic);
        byFile.set(uri.toString(), entry);
      }
    }
    this.collection.clear();
    for (const { uri, diagnostics } of byFile.values()) this.collection.set(uri, diagnostics);
  }
}
