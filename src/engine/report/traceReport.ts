import type { AgentRole } from '../domain/events';
import type { RunState } from '../domain/runState';
import type { TaskState } from '../domain/taskStates';
import type { TokenUsage } from '../domain/usage';

/** What `taskloom trace --json` prints: one stable, documented shape derived from the projection. */
export interface TraceReport {
  runId: string;
  goal: string;
  status: RunState['status'];
  baseCommit: string;
  baseRef: string;
  createdAt: string;
  updatedAt: string;
  tasks: Array<{
    id: string;
    title: string;
    state: TaskState;
    dependsOn: string[];
    branch?: string;
    attempts: number;
    gateFailures: number;
    reviewCycles: number;
    lastReason: string;
    durationMs?: number;
    usage: TokenUsage;
    transitions: Array<{ seq: number; at: string; from: TaskState; to: TaskState; event: string; reason: string }>;
  }>;
  integration: RunState['integration'] & { gatePassed?: boolean };
  usage: { total: TokenUsage; byRole: Partial<Record<AgentRole, TokenUsage>>; byTask: Record<string, TokenUsage>; calls: number };
  warnings: string[];
  summary?: string;
}

export function buildTraceReport(state: RunState): TraceReport {
  return {
    runId: state.runId,
    goal: state.goal,
    status: state.status,
    baseCommit: state.baseCommit,
    baseRef: state.baseRef,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    tasks: state.taskOrder.map((id) => {
      const t = state.tasks[id]!;
      return {
        id,
        title: t.title,
        state: t.state,
        dependsOn: t.dependsOn,
        ...(t.branch ? { branch: t.branch } : {}),
        attempts: t.attempts.length,
        gateFailures: t.transitions.filter((tr) => tr.event === 'MECHANICAL_FAILED').length,
        reviewCycles: t.transitions.filter((tr) => tr.event === 'CRITIC_CHANGES_REQUIRED').length,
        lastReason: t.lastReason,
        ...(t.startedAt && t.finishedAt ? { durationMs: Date.parse(t.finishedAt) - Date.parse(t.startedAt) } : {}),
        usage: t.usage,
        transitions: t.transitions.map(({ seq, at, from, to, event, reason }) => ({ seq, at, from, to, event, reason })),
      };
    }),
    integration: { ...state.integration, ...(state.integration.lastGate ? { gatePassed: state.integration.lastGate.passed } : {}) },
    usage: state.usage,
    warnings: state.warnings,
    ...(state.finishedSummary ? { summary: state.finishedSummary } : {}),
  };
}
