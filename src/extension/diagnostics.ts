import * as vscode from 'vscode';
import type { CriticFindingDto, FindingsParams } from '../protocol/engineProtocol';
import type { EngineClient } from './connection/engineClient';
import type { RunsController } from './runsController';
import { criticFindingsOf } from '../engine/report/criticFindings';

const SEVERITY: Record<CriticFindingDto['severity'], vscode.DiagnosticSeverity> = {
  blocker: vscode.DiagnosticSeverity.Error,
  major: vscode.DiagnosticSeverity.Warning,
  minor: vscode.DiagnosticSeverity.Information,
  nit: vscode.DiagnosticSeverity.Hint,
};

/**
 * Critic findings in the Problems panel, for the newest run of each folder. The collection is
 * ours (not the language client's), rebuilt from run state, so it survives engine restarts.
 */
export class CriticDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('taskloom');
  private readonly byFolder = new Map<string, FindingsParams>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly unsubscribe: () => void;

  constructor(
    private readonly controller: RunsController,
    engine: EngineClient,
  ) {
    this.disposables.push(engine.onFindings((params) => this.set(params)));
    this.unsubscribe = controller.model.onDidChange((change) => {
      for (const run of change.runs) {
        const state = controller.model.run(run.folder, run.runId)?.state;
        if (state && (run.structure || run.verdicts)) this.set({ folder: run.folder, runId: run.runId, findings: criticFindingsOf(state) });
      }
    });
  }

  private set(params: FindingsParams): void {
    const newest = this.controller.model.runs(params.folder)[0]?.summary.runId;
    if (newest && newest !== params.runId) return;
    const previous = this.byFolder.get(params.folder);
    if (previous && JSON.stringify(previous) === JSON.stringify(params)) return;
    this.byFolder.set(params.folder, params);
    this.rebuild();
  }

  private rebuild(): void {
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const { folder, runId, findings } of this.byFolder.values()) {
      for (const f of findings) {
        const line = Math.max(0, (f.line ?? 1) - 1);
        const diagnostic = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), `[${f.taskId}] ${f.message}`, SEVERITY[f.severity]);
        diagnostic.source = `Taskloom critic (${f.category}${f.blocking ? ', blocking' : ''})`;
        const args = encodeURIComponent(JSON.stringify([{ folder, runId, taskId: f.taskId, seq: f.seq }]));
        diagnostic.code = { value: `ledger #${f.seq}`, target: vscode.Uri.parse(`command:taskloom.showRun?${args}`) };
        const file = vscode.Uri.file(`${folder}/${f.file}`).toString();
        byFile.set(file, [...(byFile.get(file) ?? []), diagnostic]);
      }
    }
    this.collection.clear();
    for (const [file, diagnostics] of byFile) this.collection.set(vscode.Uri.parse(file), diagnostics);
  }

  dispose(): void {
    this.unsubscribe();
    for (const d of this.disposables) d.dispose();
    this.collection.dispose();
  }
}
