import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { childRegistry, stopLeftoverProcessGroups } from '../process/childRegistry';
import type { AgentRunner, RunnerActivity } from '../agents/runner';
import type { AgentRole } from '../domain/events';
import type { Plan } from '../domain/plan';
import { PlanValidationError } from '../plan/parsePlan';
import { PLAN_LIMITS } from '../plan/planSchema';
import type { AgentConfig, RunConfig } from '../domain/runConfig';
import type { HumanAction, OverlapPair } from '../domain/events';
import { assertHumanAction, HUMAN_ACTION_EVENT } from '../domain/humanActions';
import { isInFlight } from '../domain/taskStates';
import { predictRunOverlaps } from './runOverlaps';
import { assertSigningWorks } from '../workspace/commitIdentity';
import type { GitObserver } from '../workspace/git';
import { IntegrationBranch } from '../workspace/integrationBranch';
import { continueHandResolution, startHandResolution, type ContinueOutcome, type HandResolution } from './handResolution';
import { hideIncludedSecrets } from '../workspace/worktreeInclude';
import { queueForMerge } from './taskLoop';
import { taskCommits } from '../session/taskCommits';
import { AuthorTrust } from '../deliver/authorTrust';
import type { WatchContext } from '../deliver/pullRequestReaction';
import { watchPass, type WatchMode, type WatchPass } from '../deliver/watchPass';
import { watchPullRequests, type WatchOptions, type WatchOutcome } from '../deliver/watchPullRequests';
import type { Forge } from '../forge/forge';
import { RunStore } from '../store/runStore';
import { ensureExcluded, inspectRepo, type RepoInfo } from '../workspace/repoInspector';
import { WorktreeManager } from '../workspace/worktreeManager';
import { createRunner, RoleRunners } from '../session/agentFactory';
import type { DriveOutcome } from './engineShutdown';
import { RunControl } from '../session/runControl';
import { driveRun } from './orchestrator';
import { listenToInbox } from './runRequests';
import { planRun, PlanningError } from './planner';
import { fixedPlan, lastPlanRound, PlanNotReadyError } from '../plan/planReview';
import { planTaskFindings, type PlanTaskFix } from '../domain/planFindings';
import { errorText } from '../domain/taskloomError';
import { observedRunner } from './observedRunner';
import { newRunId } from './runId';
import type { RunContext } from '../session/runContext';
import { RunSession } from '../session/runSession';
import { isKnownRun, recordKnownRun, stateDir } from './runProvenance';
import { counted } from '../text/counted';
import { isDeepStrictEqual } from 'node:util';
import { confinementFacts, DEFAULT_SANDBOX_SETTINGS, type Confinement } from '../domain/sandboxSettings';
import { resolveConfinement } from '../sandbox/confinement';
import type { SandboxContext } from '../sandbox/taskLauncher';
import { restoreActorSnapshot, type RestoredSnapshot } from './restoreSnapshot';
import { handBack, recordTakeOver, stopUndrivenTask } from './personAtTask';
import { runTakeOverSession, takeOverSession, type TakeOverSession } from '../session/takeOverSession';
import type { InteractiveEnd } from '../sandbox/interactiveLauncher';
import type { PullRequestRecord, RunState } from '../domain/runState';
import { Notifier } from '../notify/notifier';
import { IssueStatusFollower, type ForgeAccess } from '../deliver/issueStatusFollower';
import { configuredForgeAccess } from './configFile/configuredForgeAccess';
import type { NotifyTarget } from '../notify/notifyTargets';

export interface EngineOptions {
  /** What is driving the workspace, shown to a second process that finds the lock. */
  command: string;
  /** Open without the lock, for commands that only read (runs, trace). */
  readOnly?: boolean;
  /** Makes the runner for each agent the run's config names; by default the adapter its `kind` names. A benchmark passes an in-process agent. */
  createRunner?: (agent: AgentConfig) => AgentRunner;
  /** Hears what the agents are doing (not durable): the engine server shows it in the editor. */
  onActivity?: (runId: string, taskId: string | null, role: AgentRole, activity: RunnerActivity) => void;
  /** Told about every git process the engine runs in the repository (benchmarks and tests time them). */
  gitObserver?: GitObserver;
  /** Where word of the runs it drives goes (plan ready, a task needs you, run finished, …): docs/notifications.md. */
  notify?: readonly NotifyTarget[];
  /**
   * Sends word instead of a notifier of its own (then `notify` is not read): the engine server
   * keeps one per workspace across the engines it opens and closes, so a burst begun while
   * planning is coalesced with the approval that follows.
   */
  notifier?: Notifier;
}

/** The decisions that record a choice and let the run go on; `resolve` and `continue` have their own calls. */
export type TaskDecision = Extract<HumanAction, 'retry' | 'accept' | 'skip'>;

/**
 * The engine's front door, shared by the CLI and the engine server: opens the workspace's
 * store, creates and resumes runs, and drives them. Never imports `vscode`.
 */
export class TaskloomEngine {
  /** The say a person has over each run this engine drives now, by run id. */
  private readonly controls = new Map<string, RunControl>();
  /** Sends word of the runs driven here; none for a read-only engine, which drives nothing. */
  private readonly notifier: Notifier | undefined;
  /** Keeps the status comment of each run from an issue current, whatever moves it; none for a read-only engine. */
  private readonly issueStatus: IssueStatusFollower | undefined;

  private constructor(
    readonly repo: RepoInfo,
    readonly store: RunStore,
    readonly warnings: string[],
    private readonly options: EngineOptions,
  ) {
    const targets = options.notify ?? [];
    this.notifier = options.readOnly ? undefined : (options.notifier ?? (targets.length > 0 ? new Notifier(targets) : undefined));
    this.issueStatus = options.readOnly ? undefined : new IssueStatusFollower(repo.root, () => configuredForgeAccess(repo.root));
  }

  static async open(cwd: string, options: EngineOptions): Promise<TaskloomEngine> {
    const repo = await inspectRepo(cwd, options.gitObserver);
    if (!options.readOnly) await ensureExcluded(repo.gitCommonDir);
    const { store, warnings } = RunStore.open(repo.root, { command: options.command, readOnly: options.readOnly ?? false });
    if (!options.readOnly) {
      // Only the lock holder may stop what a dead predecessor left running.
      try {
        const registryFile = processRegistryFile(repo.root);
        const stopped = await stopLeftoverProcessGroups(registryFile);
        if (stopped) warnings.push(`stopped ${counted(stopped, 'agent or gate process group')} left running by a Taskloom process that died`);
        childRegistry.persistTo(repo.root, registryFile);
      } catch (error) {
        warnings.push(
          `cannot keep the list of running agents and gates (${(error as Error).message}); if this process is killed, ` +
            'what it started must be stopped by hand. Set TASKLOOM_STATE_DIR to a writable folder.',
        );
      }
    }
    return new TaskloomEngine(repo, store, warnings, options);
  }

  /** Starts a run from a plan, or, without one, in the planning state for `planGoal`. */
  createRun(plan: Plan | undefined, config: RunConfig, goal = plan?.goal ?? ''): RunSession {
    // A plan's goal was checked with the plan; a typed goal goes into every prompt, so it has the same limit.
    if (goal.length > PLAN_LIMITS.goal) {
      throw new PlanValidationError([`goal: is ${goal.length} characters long (at most ${PLAN_LIMITS.goal})`]);
    }
    const runId = newRunId();
    // Recorded first, outside the repository (runProvenance.ts): a crash right after creating the
    // run must not leave a run of ours that resume would treat as foreign.
    const warning = recordKnownRun(this.repo.root, runId, config);
    if (warning) this.warnings.push(warning);
    this.store.createRun(runId, {
      type: 'run_created',
      goal,
      plan: plan ?? { goal, tasks: [] },
      config,
      repoRoot: this.repo.root,
      baseCommit: this.repo.headCommit,
      baseRef: this.repo.headRef,
      ignoredChanges: this.repo.dirtyPaths,
      createdBy: { host: hostname(), pid: process.pid },
    });
    return this.followed(new RunSession(this.store, runId));
  }

  /** Created (or trusted) by this user on this machine; otherwise driving it must be confirmed first. */
  isKnownRun(session: RunSession): boolean {
    return isKnownRun(this.repo.root, session.state);
  }

  /** The user confirmed a run they did not create here: later resumes do not ask again. */
  trustRun(session: RunSession): void {
    const warning = recordKnownRun(this.repo.root, session.runId, session.state.config);
    if (warning) this.warnings.push(warning);
  }

  session(runId: string): RunSession {
    const { warnings } = this.store.loadRun(runId);
    this.warnings.push(...warnings);
    return this.followed(new RunSession(this.store, runId));
  }

  /** `session`, with the notifier (if any) and the issue's status comment following what it emits. */
  private followed(session: RunSession): RunSession {
    this.notifier?.follow(session);
    this.issueStatus?.follow(session);
    return session;
  }

  /** How this door reaches the forge of its runs' issues (a token it holds, GitHub Enterprise's API); by default configuredForgeAccess's. */
  reachForgeWith(access: ForgeAccess): void {
    this.issueStatus?.reachWith(access);
  }

  /** A run from an issue was discarded: its status comment says so last; a failure is one of the engine's warnings. */
  async tellIssueRunDiscarded(state: RunState): Promise<void> {
    const failure = await this.issueStatus?.discarded(state);
    if (failure) this.warnings.push(`the issue's status comment was not updated: ${failure.message}`);
  }

  /** Has the planner draft the run's plan (the critic reviews it); the run then awaits approval. */
  async planGoal(session: RunSession, signal: AbortSignal): Promise<Plan> {
    return planRun({ session, agents: this.agentsFor(session), sandbox: await this.sandboxFor(session), signal });
  }

  /** Ends a run whose plan was not approved; its drafts stay in the ledger. */
  rejectPlan(session: RunSession, reason: string): void {
    session.emit({ type: 'run_finished', status: 'cancelled', summary: reason });
  }

  /** Approves the plan waiting for it; refused while a task's title or description is left to fill in (domain/planFindings.ts). */
  approvePlan(session: RunSession, by: 'human' | 'autopilot'): void {
    if (session.state.planApproved) return;
    const findings = planTaskFindings(session.state.plan);
    if (findings.length > 0) throw new PlanNotReadyError(findings);
    session.emit({ type: 'plan_approved', by });
  }

  /** A person fills in a task of the plan waiting for approval, or drops it: the fixed plan is the next draft. */
  revisePlan(session: RunSession, fix: PlanTaskFix): Plan {
    const plan = fixedPlan(session.state, fix);
    session.emit({ type: 'plan_proposed', round: lastPlanRound(session.state) + 1, plan });
    return plan;
  }

  /** Ends a run whose planning failed, keeping the planner's rejected answer for a person to fix and start from. */
  endFailedPlanning(session: RunSession, error: Error): void {
    const rejectedPlan = error instanceof PlanningError ? error.rejectedPlan : undefined;
    session.emit({ type: 'run_finished', status: 'failed', summary: errorText(error), ...(rejectedPlan !== undefined ? { rejectedPlan } : {}) });
  }

  /**
   * Makes a stopped run ready to drive again: tasks that were in flight when the previous
   * process stopped (or were cancelled) start over from a clean worktree, except work that had
   * passed its gate and critic, which goes back to the merge queue as it was approved.
   */
  prepareResume(session: RunSession, reason: string): void {
    session.emit({ type: 'run_resumed', reason });
    for (const taskId of session.state.taskOrder) {
      const task = session.task(taskId);
      const stopped = isInFlight(task.state) || task.state === 'CANCELLED' || task.state === 'MERGING';
      if (!stopped) continue;
      if (task.greenCommit) {
        session.transition(taskId, 'REQUEUED', `back to the merge queue with its approved work (was ${task.state} when the run stopped)`);
      } else {
        session.transition(taskId, 'INTERRUPTED', `restarting from a clean worktree (was ${task.state} when the run stopped)`);
      }
    }
  }

  /** Retry (with a note for the agent), accept as it is, or skip (and what depends on it): the run then goes on. */
  async recordHumanDecision(session: RunSession, taskId: string, action: TaskDecision, note?: string): Promise<void> {
    const task = session.task(taskId);
    assertHumanAction(task, action);
    const worktrees = this.worktrees(session);
    if (action === 'accept' && task.worktreePath) {
      // "As it is" includes what the agent left uncommitted when it stopped (or what the human edited).
      const planTask = session.state.plan.tasks.find((t) => t.id === taskId)!;
      const committed = await worktrees.commitAll(worktrees.taskPath(taskId), taskCommits(session, planTask).acceptedAsIs());
      if (committed) session.emit({ type: 'work_committed', taskId, attempt: task.attempt, ...committed });
    }
    session.emit({ type: 'human_decision', taskId, action, ...(note ? { note } : {}) });
    session.transition(taskId, HUMAN_ACTION_EVENT[action], `human chose to ${action}${note ? `: ${note}` : ''}`);
    if (action === 'accept') await queueForMerge({ session, worktrees }, taskId);
  }

  /** A person resolves a task the merge queue sent back, in its worktree (see handResolution.ts). */
  resolveByHand(session: RunSession, taskId: string): Promise<HandResolution> {
    return startHandResolution({ session, worktrees: this.worktrees(session), integration: this.integration(session) }, taskId);
  }

  /** Puts a task's worktree back as the actor snapshot of ledger entry `seq` holds it (a task waiting for a person). */
  restoreSnapshot(session: RunSession, seq: number): Promise<RestoredSnapshot> {
    return restoreActorSnapshot(session, this.repo, seq);
  }

  /** Checks a hand resolution with the gate; when it passes, the task is queued for merge (drive the run next). */
  async continueAfterHandResolution(session: RunSession, taskId: string, signal: AbortSignal): Promise<ContinueOutcome> {
    const sandbox = await this.sandboxFor(session);
    return continueHandResolution({ session, worktrees: this.worktrees(session), integration: this.integration(session), sandbox }, taskId, signal);
  }

  /** How a person stops one task of a run this engine drives now; undefined when it does not drive the run. */
  runControl(runId: string): RunControl | undefined {
    return this.controls.get(runId);
  }

  /** A person stops a task that was in flight when the run stopped: it waits for them, a resume leaves it be. */
  stopUndrivenTask(session: RunSession, taskId: string, by: string): Promise<void> {
    return stopUndrivenTask({ session, worktrees: this.worktrees(session) }, taskId, by);
  }

  /** A person works on a task that waits for them (see recordTakeOver); false when it was theirs already. */
  recordTakeOver(session: RunSession, taskId: string, by: string): boolean {
    return recordTakeOver(session, taskId, by);
  }

  /** A person hands back a task they stopped or took over: its next drive gates and reviews its worktree (drive the run next). */
  handBack(session: RunSession, taskId: string): void {
    handBack(session, taskId);
  }

  /** The session a person takes the task over in (its actor's agent, resumed), and whether it is confined here. */
  async takeOverSession(state: RunState, taskId: string): Promise<TakeOverSession & { confinement: Confinement }> {
    const sandbox = await this.sandboxHere(state);
    return { ...takeOverSession(state, taskId, sandbox.confinement.confined), confinement: sandbox.confinement };
  }

  /** Runs that session on this process's terminal, confined as the task's actor is, until the person leaves it. */
  async runTakeOverSession(state: RunState, taskId: string): Promise<{ session: TakeOverSession; end: InteractiveEnd; confinement: Confinement }> {
    const sandbox = await this.sandboxHere(state);
    return { ...(await runTakeOverSession(state, sandbox, taskId)), confinement: sandbox.confinement };
  }

  /** The overlaps the plan's files hints predict, for showing at plan approval (the run records them when it starts). */
  predictedOverlaps(session: RunSession): Promise<OverlapPair[]> {
    return predictRunOverlaps(session.state, this.repo);
  }

  async drive(session: RunSession, signal: AbortSignal): Promise<DriveOutcome> {
    await this.readyToWork(session);
    let paused = session.state.status === 'paused';
    const control = new RunControl(signal);
    const ctx: RunContext = {
      session,
      sandbox: await this.sandboxFor(session),
      worktrees: this.worktrees(session),
      integration: this.integration(session),
      agents: this.agentsFor(session),
      signal,
      control,
      pause: (reason) => {
        if (paused) return;
        paused = true;
        session.emit({ type: 'run_paused', reason });
      },
      isPaused: () => paused,
    };
    // Requests from other processes (taskloom send, the editor while a terminal drives) are taken while this drive lasts.
    this.controls.set(session.runId, control);
    const stopListening = listenToInbox(ctx, this.store.runPaths(session.runId).dir);
    try {
      return await driveRun(ctx);
    } finally {
      stopListening();
      this.controls.delete(session.runId);
      this.store.flush(session.runId);
    }
  }

  /** Keeps the run's pull requests green on `forge` (see watchPullRequests); commits sign as the run's do. */
  async watchPullRequests(session: RunSession, forge: Forge, options: WatchOptions & { trustedBots: readonly string[] }, signal: AbortSignal): Promise<WatchOutcome> {
    await this.readyToWork(session);
    try {
      return await watchPullRequests(await this.watchContext(session, forge, new AuthorTrust(forge, options.trustedBots), signal), options);
    } finally {
      this.store.flush(session.runId);
    }
  }

  /**
   * One look at the run's pull requests, reacting to what needs a fix (see watchPass): for a caller
   * that waits between passes itself, and keeps `trust` (what it learnt of authors) from one to the next.
   */
  async watchPass(session: RunSession, forge: Forge, trust: AuthorTrust, mode: WatchMode, signal: AbortSignal, tell?: (pr: PullRequestRecord, line: string) => void): Promise<WatchPass> {
    await this.readyToWork(session);
    try {
      return await watchPass(await this.watchContext(session, forge, trust, signal), mode, tell);
    } finally {
      this.store.flush(session.runId);
    }
  }

  private async watchContext(session: RunSession, forge: Forge, trust: AuthorTrust, signal: AbortSignal): Promise<WatchContext> {
    const sandbox = await this.sandboxFor(session);
    return { session, forge, trust, signal, sandbox, agents: this.agentsFor(session), repo: this.repo, worktrees: this.worktrees(session) };
  }

  /**
   * How this session confines the run's processes (an `on` that cannot confine throws here, before
   * anything starts), recorded in the run when it is not what the run last recorded: a resume on
   * another machine, or after bubblewrap was installed, says so.
   */
  async confine(session: RunSession): Promise<Confinement> {
    return (await this.sandboxFor(session)).confinement;
  }

  /**
   * Before anything of the run is committed or shown: a signer that cannot sign stops it here,
   * clearly, and the secrets of the files copied into its worktrees are redacted from then on.
   */
  private async readyToWork(session: RunSession): Promise<void> {
    await assertSigningWorks(this.repo.root, this.repo.identity);
    await hideIncludedSecrets(session.state.repoRoot, session.state.config.worktree?.copy ?? []);
  }

  private async sandboxFor(session: RunSession): Promise<SandboxContext> {
    const sandbox = await this.sandboxHere(session.state);
    if (!isDeepStrictEqual(session.state.confinement, sandbox.confinement)) session.emit({ type: 'confinement', ...confinementFacts(sandbox.confinement) });
    return sandbox;
  }

  /** How this process confines the run's processes, recorded nowhere: a process that only reads the run (a person's session beside its drive) asks too. */
  private async sandboxHere(state: RunState): Promise<SandboxContext> {
    const settings = state.config.sandbox ?? DEFAULT_SANDBOX_SETTINGS;
    return { confinement: await resolveConfinement(settings.mode), settings };
  }

  private worktrees(session: RunSession): WorktreeManager {
    return new WorktreeManager(this.repo, session.runId, session.state.config.worktree?.root);
  }

  private integration(session: RunSession): IntegrationBranch {
    return new IntegrationBranch(this.repo, session.runId, session.state.config.worktree?.root);
  }

  private agentsFor(session: RunSession): RoleRunners {
    return new RoleRunners(session, (agent) => {
      const runner = (this.options.createRunner ?? createRunner)(agent);
      const listen = this.options.onActivity;
      if (!listen) return runner;
      return observedRunner(runner, (input, activity) => listen(session.runId, input.taskId, input.role, activity));
    });
  }

  /**
   * Brings the issues' status comments up to date, then sends the word still waiting and gives it
   * a bounded time to arrive (a run already ended: nothing waits on it but the process's exit), so
   * a failed delivery is still recorded. A front door that exits calls it before `close`.
   */
  async drainNotifications(): Promise<void> {
    await this.issueStatus?.settle();
    await this.notifier?.drain();
  }

  close(): void {
    if (!this.options.readOnly) childRegistry.persistTo(this.repo.root, undefined);
    this.store.close();
  }
}

/**
 * Where the engine keeps the process groups it runs for a repository: in the per-user state
 * folder, one file per repository, never inside the repository, whose own files a clone can
 * bring along (a crafted list must not choose what the next engine signals).
 */
export function processRegistryFile(repoRoot: string): string {
  const dir = join(stateDir(), 'processes');
  mkdirSync(dir, { recursive: true });
  const id = createHash('sha256').update(realpathSync(repoRoot)).digest('hex').slice(0, 32);
  return join(dir, `${id}.json`);
}
