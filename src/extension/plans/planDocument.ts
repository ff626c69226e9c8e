import * as vscode from 'vscode';
import type { Plan } from '../../engine/domain/plan';
import { PredictOverlapsRequest, type PredictedOverlaps } from '../../protocol/engineProtocol';
import type { Services } from '../services';
import type { RunRef } from '../targets/runRef';
import { plainText } from '../tree/presentation';

export const PLAN_SCHEME = 'taskloom-plan';

/** The plan as a readable document: tasks in order, their dependencies and acceptance criteria, and the predicted overlaps. */
export function planMarkdown(goal: string, plan: Plan, overlaps?: PredictedOverlaps): string {
  const lines = [`# Plan: ${plainText(goal, 200)}`, ''];
  if (plan.rationale) lines.push(plainText(plan.rationale, 2000), '');
  if (overlaps?.pairs.length) {
    const how =
      overlaps.mode === 'serialize'
        ? 'Each second task waits until the first is merged, and starts from the integration branch that holds it.'
        : 'They run side by side (taskloom.schedule.overlap is "warn"); the merge queue resolves conflicts.';
    lines.push('## Predicted overlaps', '', how, '', ...overlaps.pairs.map((p) => `- ${p.second} after ${p.first}: both touch ${p.files.join(', ')}`), '');
  }
  for (const task of plan.tasks) {
    lines.push(`## ${task.id}: ${plainText(task.title, 200)}`);
    lines.push(task.dependsOn.length ? `After: ${task.dependsOn.join(', ')}` : 'No dependencies', '');
    lines.push(task.description || '*No description yet: fill it in (or drop the task) in the run view before the plan can be approved.*', '');
    if (task.acceptance.length) lines.push('Acceptance:', ...task.acceptance.map((a) => `- ${a}`), '');
  }
  return lines.join('\n');
}

const planUri = (ref: RunRef) => vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/Plan ${ref.runId}.md`, query: ref.folder });

export class PlanDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: Services) {}
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const runId = uri.path.replace(/^\/Plan /, '').replace(/\.md$/, '');
    const state = await this.services.controller.state(uri.query, runId);
    if (!state) return `Run ${runId} was not found.`;
    const overlaps = await this.services.engine.request(PredictOverlapsRequest.type, { folder: uri.query, runId }).catch(() => undefined);
    return planMarkdown(state.goal, state.plan, overlaps);
  }
}

/** The plan as a read-only Markdown document: descriptions, acceptance and predicted overlaps, which the graph leaves out. */
export async function showPlanDocument(ref: RunRef): Promise<void> {
  await vscode.window.showTextDocument(planUri(ref), { preview: true });
}
