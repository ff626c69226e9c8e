import * as z from 'zod';
import { SANDBOX_MODES } from '../domain/sandboxSettings';
import { AGENT_ROLES } from '../domain/agentRoles';
import { EVENT_SCHEMA_VERSION, type GateCommandResult, type RunEvent, type RunEventBody, type RunEventType } from '../domain/events';
import type { Plan } from '../domain/plan';
import { AGENT_KINDS, type RunConfig } from '../domain/runConfig';
import { TASK_EVENTS, TASK_STATES } from '../domain/taskStates';
import type { TokenUsage } from '../domain/usage';
import { FINDING_CATEGORIES, FINDING_SEVERITIES, type CriticVerdict } from '../domain/verdict';
import type { GateSelection, GateTestOutcome, TestRef } from '../domain/gateTests';
import { displayLine } from '../text/terminalText';

// The shape of every event as the log holds it, checked as each one is read back, so a damaged
// payload is named by its line and field instead of failing somewhere in the projection. Each
// schema is tied to its type in domain/events.ts: a field added to, removed from or changed in
// one and not the other fails to compile (see `Untied` below). Fields an older release did not
// write are optional in the type, so the schemas accept every older log (test/fixtures/logs).
// Only shapes are checked: whether an event makes sense where it stands is the projection's call.
// Fields this release does not know are let through: a log stays loadable when a field is dropped.

/** Exactly the same type, optional fields and all (assignability either way would let an optional field go missing). */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/** Schema for a part shared by several events, tied to its type like the events themselves. */
const tied =
  <T>() =>
  <S extends z.ZodType>(schema: S & (Same<z.output<S>, T> extends true ? unknown : { differsFrom: T })): S =>
    schema;

const text = z.string();
const nullableTaskId = z.string().nullable();

const plan = tied<Plan>()(
  // The plan as it was taken (planSchema.ts checked it then); not cleaned or re-limited again.
  z.object({
    goal: text,
    rationale: text.optional(),
    tasks: z.array(
      z.object({
        id: text,
        title: text,
        description: text,
        acceptance: z.array(text),
        dependsOn: z.array(text),
        files: z.array(text).optional(),
        sensitive: z.array(text).optional(),
        agent: z.enum(AGENT_KINDS).optional(),
        model: text.optional(),
        candidates: z.number().optional(),
      }),
    ),
  }),
);

const roleModels = z.object({ planner: text.optional(), actor: text.optional(), critic: text.optional() });
const agentConfig = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scripted'), scriptPath: text }),
  z.object({ kind: z.literal('claude'), binaryPath: text, models: roleModels }),
  z.object({ kind: z.literal('codex'), binaryPath: text, models: roleModels, configOverrides: z.array(text) }),
  z.object({ kind: z.literal('command'), argv: z.array(text), models: roleModels }),
]);

const runConfig = tied<RunConfig>()(
  z.object({
    maxParallel: z.number(),
    maxGateFixAttempts: z.number(),
    maxReviewCycles: z.number(),
    gateCommands: z.array(text),
    gateTimeoutSeconds: z.number(),
    actorAllowedCommands: z.array(text).optional(),
    stuckThresholdSeconds: z.number(),
    allowUnverified: z.boolean(),
    budgets: z.object({ runUsd: z.number().optional(), runTokens: z.number().optional(), taskUsd: z.number().optional(), taskTokens: z.number().optional() }).optional(),
    overlap: z.enum(['serialize', 'warn', 'off']).optional(),
    worktree: z.object({ copy: z.array(text), setup: z.array(text), root: text.optional() }).optional(),
    sensitivePaths: z.array(text).optional(),
    agent: agentConfig,
    roles: z.record(z.enum(AGENT_ROLES), z.object({ agent: z.enum(AGENT_KINDS), model: text.optional() })).optional(),
    agents: z.partialRecord(z.enum(AGENT_KINDS), agentConfig).optional(),
    sandbox: z
      .object({
        mode: z.enum(SANDBOX_MODES),
        hiddenPaths: z.array(text),
        readPaths: z.array(text),
        allowedHosts: z.array(text),
        setupHosts: z.array(text),
        gateHosts: z.array(text),
        env: z.array(text),
        agentsSeeIncludedFiles: z.boolean(),
      })
      .optional(),
    gate: z.object({ baseline: z.boolean(), affectedOnly: z.boolean(), flakyReruns: z.number(), keepOutputs: z.array(text).optional(), onBaseFailure: z.enum(['advisory', 'required']).optional() }).optional(),
    candidates: z.object({ count: z.number(), agents: z.array(z.object({ agent: z.enum(AGENT_KINDS), model: text.optional() })).optional(), confirmPick: z.literal(true).optional() }).optional(),
  }),
);

const verdict = tied<CriticVerdict>()(
  z.object({
    decision: z.enum(['green', 'changes_required']),
    summary: text,
    findings: z.array(
      z.object({
        file: text.optional(),
        line: z.number().optional(),
        severity: z.enum(FINDING_SEVERITIES),
        category: z.enum(FINDING_CATEGORIES),
        message: text,
      }),
    ),
  }),
);

const testRef = tied<TestRef>()(z.object({ id: text, name: text, file: text.optional() }));
const testRefs = z.array(testRef);
const gateTests = tied<GateTestOutcome>()(
  z.object({
    runner: text,
    passed: z.number(),
    skipped: z.number(),
    failed: testRefs,
    newFailures: testRefs,
    alreadyFailing: testRefs,
    flaky: testRefs,
  }),
);
const gateSelection = tied<GateSelection>()(
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('all'), why: text.optional() }),
    z.object({ kind: z.literal('affected'), how: z.enum(['import graph', 'runner', 'workspace packages']), why: text, none: z.literal(true).optional() }),
  ]),
);

export const GATE_COMMANDS_SCHEMA = z.array(
  tied<GateCommandResult>()(
    z.object({
      command: text,
      exitCode: z.number().nullable(),
      timedOut: z.boolean(),
      durationMs: z.number(),
      output: text,
      failure: z.object({ excerpt: text, shape: text.nullable() }).optional(),
      tests: gateTests.optional(),
      advisory: z.literal(true).optional(),
      selection: gateSelection.optional(),
    }),
  ),
);

const usage = tied<TokenUsage>()(
  z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheWriteTokens: z.number(), costUsd: z.number() }),
);

const agentRole = z.enum(AGENT_ROLES);
const texts = z.array(text);

/** Each event type's fields besides `type`; the key is the type. */
const BODY_SHAPES = {
  run_created: {
    goal: text,
    plan,
    config: runConfig,
    repoRoot: text,
    baseCommit: text,
    baseRef: text,
    ignoredChanges: texts,
    createdBy: z.object({ host: text, pid: z.number() }),
  },
  plan_proposed: { round: z.number(), plan },
  plan_reviewed: { round: z.number(), verdict, blocking: z.number() },
  plan_approved: { by: z.enum(['human', 'autopilot']) },
  task_transition: { taskId: text, event: z.enum(TASK_EVENTS), from: z.enum(TASK_STATES), to: z.enum(TASK_STATES), reason: text },
  worktree_prepared: {
    taskId: text,
    branch: text,
    path: text,
    baseCommit: text,
    fresh: z.boolean(),
    port: z.number().optional(),
    recycledFrom: text.optional(),
    setupKept: z.boolean().optional(),
  },
  worktree_setup: {
    taskId: text,
    path: text,
    copied: texts,
    copiedCount: z.number(),
    notIgnored: texts,
    passed: z.boolean(),
    cancelled: z.boolean().optional(),
    commands: GATE_COMMANDS_SCHEMA,
  },
  work_committed: { taskId: text, attempt: z.number(), commit: text, filesChanged: texts },
  sensitive_held: { taskId: text, commit: text, base: text, files: z.array(z.object({ path: text, pattern: text.optional(), scripts: texts.optional() })) },
  actor_snapshot: { taskId: text, attempt: z.number(), commit: text, ref: text },
  gate_result: {
    taskId: nullableTaskId,
    attempt: z.number(),
    passed: z.boolean(),
    commands: GATE_COMMANDS_SCHEMA,
    commit: text.optional(),
    taskIds: texts.optional(),
    tree: text.optional(),
    key: text.optional(),
    cachedFrom: z.object({ seq: z.number(), taskId: nullableTaskId, attempt: z.number() }).optional(),
  },
  baseline_result: { commit: text, tree: text, key: text, commands: GATE_COMMANDS_SCHEMA, cached: z.literal(true).optional() },
  baseline_choice: { commands: texts, choice: z.enum(['advisory', 'required']), bySetting: z.literal(true).optional() },
  missed_regression: { command: text, tests: testRefs, taskIds: texts },
  gate_skipped: { taskId: text, attempt: z.number(), tree: text, failedAttempt: z.number() },
  critic_verdict: { taskId: text, review: z.number(), verdict, blocking: z.number(), base: text.optional(), commit: text.optional() },
  agent_transcript: {
    taskId: nullableTaskId,
    call: z.number().optional(),
    role: agentRole.optional(),
    attempt: z.number().optional(),
    purpose: z.enum(['resolve', 'fix', 'compare']).optional(),
    candidate: z.number().optional(),
    lines: z.array(z.object({ kind: z.enum(['text', 'tool', 'status']), text, ms: z.number(), n: z.number().optional() })),
    omitted: z.number().optional(),
  },
  runner_call: {
    taskId: nullableTaskId,
    role: agentRole,
    agent: text,
    model: text,
    status: z.enum(['ok', 'agent_error', 'quota', 'auth', 'max_turns', 'cancelled', 'idle_timeout', 'crashed', 'spawn_failed']),
    usage,
    durationMs: z.number(),
    quotaHit: z.boolean(),
    sessionId: text.optional(),
    resumed: z.boolean().optional(),
    detail: text.optional(),
    transcript: z.number().optional(),
    candidate: z.number().optional(),
  },
  candidate_started: { taskId: text, candidate: z.number(), agent: text, model: text.optional(), branch: text, path: text, baseCommit: text },
  candidate_finished: {
    taskId: text,
    candidate: z.number(),
    passed: z.boolean(),
    commands: GATE_COMMANDS_SCHEMA,
    commit: text.optional(),
    filesChanged: texts,
    tree: text.optional(),
    key: text.optional(),
    failure: text.optional(),
  },
  candidate_skipped: { taskId: text, candidate: z.number(), reason: text },
  candidate_picked: { taskId: text, candidate: z.number(), by: z.enum(['critic', 'gate', 'person']), reasons: text, passed: z.array(z.number()) },
  human_decision: { taskId: text, action: z.enum(['retry', 'accept', 'skip', 'resolve', 'continue']), note: text.optional() },
  integration_prepared: { branch: text, path: text },
  merge_queued: { taskId: text, commit: text },
  queue_batch: { batch: z.number(), base: text, taskIds: texts },
  merge_done: { taskId: text, commit: text, alreadyMerged: z.boolean() },
  merge_conflict: { taskId: text, files: texts },
  queue_bisected: { batch: z.number(), culprit: text, merged: texts, requeued: texts },
  task_synced: {
    taskId: text,
    path: text,
    from: text,
    integrationCommit: text,
    conflicts: texts,
    added: z.boolean().optional(),
    port: z.number().optional(),
  },
  overlaps_predicted: { mode: z.enum(['serialize', 'warn', 'off']), pairs: z.array(z.object({ first: text, second: text, files: texts })) },
  overlap_detected: { taskId: text, otherTaskId: text, files: texts },
  run_applied: { branch: text, commit: text, history: z.enum(['merge', 'squash']), commits: z.number() },
  pull_request: {
    taskId: nullableTaskId,
    number: z.number(),
    url: text,
    head: text,
    base: text,
    action: z.enum(['opened', 'updated', 'adopted']),
    repo: text,
    remote: text,
  },
  pr_observed: {
    number: z.number(),
    headSha: text,
    state: z.enum(['open', 'closed', 'merged']),
    mergeable: z.boolean().nullable(),
    checks: z.array(z.object({ name: text, status: z.enum(['pending', 'success', 'failure']) })),
    review: z.enum(['changes_requested', 'approved', 'none']),
  },
  pr_reaction_started: {
    number: z.number(),
    reaction: z.number(),
    kind: z.enum(['check', 'review', 'conflict']),
    signals: texts,
    headSha: text,
    taskIds: z.array(nullableTaskId),
    summary: text,
  },
  pr_reaction_resumed: { number: z.number(), reaction: z.number(), reason: text },
  pr_fix_gated: { number: z.number(), reaction: z.number(), attempt: z.number(), passed: z.boolean(), commands: GATE_COMMANDS_SCHEMA },
  pr_fix_reviewed: { number: z.number(), reaction: z.number(), attempt: z.number(), verdict, blocking: z.number() },
  pr_fix_pushed: { number: z.number(), reaction: z.number(), commit: text, commits: z.number() },
  pr_replied: { number: z.number(), reaction: z.number(), commentId: text },
  pr_reaction_finished: { number: z.number(), reaction: z.number(), outcome: z.enum(['pushed', 'failed']), reason: text },
  pr_watch_ended: { number: z.number(), outcome: z.enum(['green', 'merged', 'needs_human']), reason: text },
  pull_request_escalated: {
    number: z.number(),
    url: text,
    headSha: text,
    red: z.enum(['checks', 'conflict']),
    failing: texts,
    since: text,
    afterMinutes: z.number(),
  },
  pull_request_merged_by_taskloom: { number: z.number(), headSha: text, method: z.enum(['merge', 'squash', 'rebase']), commit: text, approvedBy: texts },
  confinement: { mode: z.enum(SANDBOX_MODES), confined: z.boolean(), mechanism: text.optional(), reason: text.optional() },
  pr_input_ignored: {
    number: z.number(),
    input: z.enum(['review', 'review_comment', 'comment', 'check']),
    id: text,
    author: text,
    why: z.enum(['no_write_access', 'untrusted_bot', 'fork_check']),
    association: text.optional(),
    permission: text.optional(),
    state: text.optional(),
    path: text.optional(),
    excerpt: text,
  },
  run_issue: {
    repo: text,
    number: z.number(),
    url: text,
    title: text,
    author: text,
    authorTrusted: z.boolean(),
    confirmedBy: z.literal('human').optional(),
    labelledBy: text.optional(),
    usedComments: texts,
    leftOut: z.array(z.object({ id: text, author: text, why: z.enum(['no_write_access', 'untrusted_bot']), association: text })),
  },
  run_paused: { reason: text },
  run_resumed: { reason: text },
  run_finished: {
    status: z.enum(['completed', 'needs_human', 'paused', 'cancelled', 'failed']),
    summary: text,
    counts: z.object({ total: z.number(), merged: z.number(), skipped: z.number(), needsYou: z.number(), integrationGatePassed: z.boolean() }).optional(),
    rejectedPlan: text.optional(),
  },
  warning: { message: text, taskId: text.optional() },
  task_message: { taskId: text, messageId: text, from: text, text },
  task_message_delivered: { taskId: text, messageId: text, how: z.enum(['live', 'next_turn']), attempt: z.number() },
  task_stop_requested: { taskId: text, requestId: text, by: text },
  run_request_refused: {
    requestId: text,
    kind: z.enum(['message', 'stop', 'take_over']),
    taskId: text,
    from: text,
    why: z.enum(['unknown_task', 'task_state']),
    state: z.enum(TASK_STATES).optional(),
  },
} satisfies Record<RunEventType, z.ZodRawShape>;

type BodyShapes = typeof BODY_SHAPES;
type ObjectOf<Shape> = Shape extends z.ZodRawShape ? z.ZodObject<Shape> : never;
type BodySchema<T extends RunEventType> = ObjectOf<{ type: z.ZodLiteral<T> } & BodyShapes[T]>;

/** Event types whose schema and type differ: this must stay `never` (the assignment below fails to compile naming them). */
type Untied = { [T in RunEventType]: Same<z.output<BodySchema<T>>, Extract<RunEventBody, { type: T }>> extends true ? never : T }[RunEventType];
const everyEventTied: [Untied] extends [never] ? true : { untied: Untied } = true;
void everyEventTied;

/** What the store adds to every body (`v` is absent in logs of release 0.1). */
const envelope = tied<Omit<RunEvent, keyof RunEventBody>>()(
  z.object({ seq: z.number().int().positive(), runId: text, at: text, v: z.number().int().positive().optional() }),
).shape;

/**
 * Each event type's whole line: its body, its `type` and the envelope. Compiled (z.compile):
 * zod generates a parser for each, which adds to a replay of 100,000 events a fifth of what
 * zod's interpreted parse adds (docs/durability.md); `strict` makes a schema the compiler
 * cannot model fail rather than quietly run slow (test/unit/storeEventValidation.test.ts
 * compiles every type). Each is compiled when its type is first read: compiling all 39 cost
 * every process that loads the store about 100 ms at start, `taskloom --help` included.
 */
const compiledSchemas = new Map<string, z.ZodType>();

function eventSchema(type: string): z.ZodType | undefined {
  const known = compiledSchemas.get(type);
  if (known) return known;
  if (!Object.hasOwn(BODY_SHAPES, type)) return undefined;
  const shape = BODY_SHAPES[type as keyof typeof BODY_SHAPES];
  const compiled = z.compile(z.object({ ...envelope, type: z.literal(type), ...shape }), { strict: true });
  compiledSchemas.set(type, compiled);
  return compiled;
}

/** Every event type this release writes, each with a schema (a test compiles them all). */
export const EVENT_TYPES_WITH_SCHEMAS: readonly string[] = Object.keys(BODY_SHAPES);

/**
 * What is wrong with an event line's payload, one entry per bad field (`path: reason`), or
 * undefined when it is a well-formed event of this release. An event of a newer format version
 * (`v` above EVENT_SCHEMA_VERSION) is not judged here: the projection refuses it with "update
 * Taskloom" rather than this release guessing at a shape it does not know.
 */
export function eventProblems(event: RunEvent): string[] | undefined {
  const v = event.v ?? 1;
  if (typeof v === 'number' && v > EVENT_SCHEMA_VERSION) return undefined;
  const schema = eventSchema(event.type);
  if (!schema) return [`type: ${JSON.stringify(event.type)} is not an event type of format version ${EVENT_SCHEMA_VERSION} or below`];
  const parsed = schema.safeParse(event, { error: missingField });
  if (parsed.success) return undefined;
  return parsed.error.issues.map((issue) => `${issue.path.join('.') || 'event'}: ${issue.message}${received(event, issue.path)}`);
}

/** A field that is not there is said to be missing (zod words a missing enum as "Invalid option"); other messages stay zod's. */
const missingField = (issue: { code?: string; input?: unknown }): string | undefined =>
  issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value') ? 'missing' : undefined;

/** The value found at `path`, for the message: what is there instead (cut short). */
function received(event: unknown, path: PropertyKey[]): string {
  let value = event;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return '';
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  if (value === undefined || value === null) return '';
  return ` (found ${displayLine(JSON.stringify(value) ?? String(value), 60)})`;
}
