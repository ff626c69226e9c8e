import * as vscode from 'vscode';
import { candidateChoiceOpen, type CandidatesView, type CandidateView } from '../../engine/domain/candidates';
import { ChooseCandidateRequest } from '../../protocol/engineProtocol';
import { requestTrustingRun } from '../connection/trustingRun';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { pickTask } from '../targets/pickTarget';

/**
 * Choose Another Candidate: the task's candidates side by side in a pick list (who built each, its
 * gate, what it changed, and the pick with its reasons), then the one chosen is gated, reviewed and
 * merged instead (src/engine/usecases/chooseCandidate.ts), the run driven on in the background.
 */
export async function chooseCandidate(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickTask(services.controller, arg, candidateChoiceOpen, 'Taskloom: no task with candidates waits for you.');
  if (!ref) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  const candidates = state?.tasks[ref.taskId]?.candidates;
  if (!candidates) return;
  // "Choose this one" on a candidate's card in the run view names it: no list to pick from.
  const named = (arg as { candidate?: unknown } | undefined)?.candidate;
  const choice = Number.isInteger(named) ? { candidate: named as number } : await pickCandidate(ref.taskId, candidates);
  if (!choice) return;
  const note = await vscode.window.showInputBox({ title: `Why candidate ${choice.candidate}?`, prompt: 'For the ledger (optional)' });
  if (note === undefined) return;
  const sinceSeq = services.controller.model.run(ref.folder, ref.runId)?.state?.lastSeq;
  try {
    const sent = await requestTrustingRun(services.confirm, (trust) =>
      services.engine.request(ChooseCandidateRequest.type, { ...ref, candidate: choice.candidate, ...(note.trim() ? { note: note.trim() } : {}), ...trust }),
    );
    if (!sent) return;
  } catch (error) {
    showError('choose the candidate', error);
    return;
  }
  services.controller.model.setActive(ref.folder, ref.runId, true, sinceSeq);
  services.driveProgress.show(ref);
}

/** The candidates with work side by side in a quick pick, the pick first marked with its reasons. */
async function pickCandidate(taskId: string, candidates: CandidatesView): Promise<{ candidate: number } | undefined> {
  const picked = candidates.picked;
  const items = candidates.entries
    .filter((c) => c.commit)
    .map((c) => ({
      label: `${c.candidate === picked?.candidate ? '$(star-full) ' : ''}Candidate ${c.candidate}`,
      description: candidateLine(c),
      ...(c.candidate === picked?.candidate ? { detail: `Picked by ${picked.by === 'person' ? 'you' : `the ${picked.by}`}: ${picked.reasons}` } : {}),
      candidate: c.candidate,
    }));
  return vscode.window.showQuickPick(items, { title: `Taskloom: choose a candidate of ${taskId}`, placeHolder: 'The one chosen is gated, reviewed and merged instead' });
}

/** "claude · gate passed · 2 files": a candidate in a line. */
const candidateLine = (c: CandidateView): string =>
  [c.model ? `${c.agent} (${c.model})` : c.agent, c.failure ? 'failed before its gate' : c.passed ? 'gate passed' : 'gate failed', `${c.filesChanged.length} file${c.filesChanged.length === 1 ? '' : 's'}`].join(' · ');
