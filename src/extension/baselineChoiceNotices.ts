import * as vscode from 'vscode';
import { baselineChoiceOf } from '../engine/domain/runActions';
import { RUN_PHASE_WORDS } from '../engine/domain/runPhase';
import { baselineChoiceWords, baseName } from '../engine/text/gateWords';
import { Disposable, toDisposable } from './disposable';
import { runCommand } from './runCommand';
import type { RunsController } from './runsController';
import { runFactsOf } from './state/runFacts';
import type { ModelChange, RunEntry } from './state/runsModel';
import { runName } from './targets/applicability';
import type { RunRef } from './targets/runRef';
import { runPhase } from './tree/presentation';

const BUTTONS = { 'Treat as Advisory': 'taskloom.treatAsAdvisory', 'Keep as Required': 'taskloom.keepAsRequired', 'Cancel Run': 'taskloom.cancelRun' } as const;
const ANSWERS = Object.keys(BUTTONS) as Array<keyof typeof BUTTONS>;

/** The commands the run waits for the user's choice about, while it does (paused, nobody driving it). */
const waitingCommands = (entry: RunEntry | undefined): string[] | undefined =>
  entry?.state?.status === 'paused' ? baselineChoiceOf(runFactsOf(entry)) : undefined;

/**
 * A notification when a run this window follows pauses because its base fails a gate command that
 * no test runner explained: "`npm run lint` fails on main … — Treat as Advisory / Keep as
 * Required / Cancel Run" (a fourth button would cut every title short; the run is a click away in
 * Needs You and Runs). A run already waiting when first seen here is the resume prompt's and Needs You's,
 * not news. A notification stays once shown, so a button checks, when pressed, that the run still
 * waits for that choice (a Cancel pressed after the run went on must not stop it), and says what
 * happened instead when it does not.
 */
export class BaselineChoiceNotices extends Disposable {
  /** Per run: whether it waited for the choice when last seen. */
  private readonly waited = new Map<string, boolean>();

  constructor(private readonly controller: Pick<RunsController, 'model' | 'state'>) {
    super();
    this._register(toDisposable(controller.model.onDidChange((change) => this.note(change))));
  }

  private note(change: ModelChange): void {
    for (const ref of change.runs) {
      const entry = this.controller.model.run(ref.folder, ref.runId);
      if (!entry?.state) continue;
      const key = `${ref.folder}\u0000${ref.runId}`;
      const commands = waitingCommands(entry);
      const before = this.waited.get(key);
      this.waited.set(key, commands !== undefined);
      if (before === false && commands) void this.tell({ folder: ref.folder, runId: ref.runId }, entry, commands);
    }
  }

  private async tell(ref: RunRef, entry: RunEntry, commands: string[]): Promise<void> {
    const words = baselineChoiceWords(commands, baseName(entry.state!));
    const choice = await vscode.window.showWarningMessage(`Taskloom: ${runName(entry, ref.runId)} paused: ${words}.`, ...ANSWERS);
    if (choice && (await this.stillWaits(ref))) await runCommand(BUTTONS[choice], ref);
  }

  /** The notification's premise, checked when a button is pressed: else it says how the run stands now. */
  private async stillWaits(ref: RunRef): Promise<boolean> {
    await this.controller.state(ref.folder, ref.runId);
    const entry = this.controller.model.run(ref.folder, ref.runId);
    if (waitingCommands(entry)) return true;
    const what = entry
      ? `${runName(entry, ref.runId)} no longer waits for a choice about its base: it is ${RUN_PHASE_WORDS[runPhase(entry.summary, entry.state)]} now`
      : `run ${ref.runId} is no longer in ${ref.folder}`;
    void vscode.window.showInformationMessage(`Taskloom: ${what}.`);
    return false;
  }
}
