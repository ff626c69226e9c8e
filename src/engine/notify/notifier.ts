import { noticeMemoryOf, noticesFor, type Notice, type NoticeMemory } from '../domain/notices';
import type { RunState } from '../domain/runState';
import type { RunSession } from '../session/runSession';
import { counted } from '../text/counted';
import { noticeMessage } from '../text/noticeWords';
import { notifyRequest, type NotifyRequest } from './notifyRequest';
import type { NotifyTarget } from './notifyTargets';

interface RunBurst {
  /** The session last followed: a failed delivery is its `warning`, seen live (run view, CLI progress) and in the ledger. */
  session: RunSession;
  memory: NoticeMemory;
  pending: Notice[];
  timer?: NodeJS.Timeout;
  latest?: RunState;
}

/**
 * How word is sent (docs/notifications.md › How it is delivered): notices of one run within
 * coalesceMs are one message; each message gets `tries` tries of at most tryTimeoutMs, waiting
 * backoffMs before the second (doubled after); at most maxInFlight messages are under way, so a
 * dead receiver cannot grow memory; `drain` gives those under way closeGraceMs.
 */
export const NOTIFY_TIMING = { coalesceMs: 15_000, tries: 3, backoffMs: 1_000, tryTimeoutMs: 10_000, maxInFlight: 20, closeGraceMs: 10_000 } as const;

/**
 * Sends word of the runs it follows to the user's targets, from the Taskloom process (never an
 * agent's sandbox). It only listens: a run never waits on it, and a delivery that fails is
 * retried, then recorded as a warning, never thrown. The notices come from the pure
 * `noticesFor`; the words from `noticeMessage`.
 */
export class Notifier {
  private readonly runs = new Map<string, RunBurst>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly options = NOTIFY_TIMING;

  constructor(private readonly targets: readonly NotifyTarget[]) {}

  /** Listens to `session`'s events until the returned function is called. */
  follow(session: RunSession): () => void {
    // Made now, before the next event is folded: its memory is the state as it was.
    this.burstOf(session);
    return session.onEvent((event, state) => {
      const burst = this.burstOf(session);
      const { notices, memory } = noticesFor(burst.memory, event, state);
      burst.memory = memory;
      burst.latest = state;
      if (notices.length === 0) return;
      burst.pending.push(...notices);
      // The end of a run is the last word: it goes at once, with whatever waited.
      if (notices.some((notice) => notice.kind === 'run_finished')) this.flush(session.runId);
      else burst.timer ??= unref(setTimeout(() => this.flush(session.runId), this.options.coalesceMs));
    });
  }

  /**
   * Sends every waiting burst now and waits for the deliveries under way, at most closeGraceMs;
   * what is still undelivered then is abandoned (and its warning recorded while the store is open).
   */
  async drain(): Promise<void> {
    this.sendWaiting();
    if (this.inFlight.size === 0) return;
    // Not unref'd: it keeps a CLI that is done alive for the retries' waits, up to the grace.
    const grace = setTimeout(() => this.abort.abort(), this.options.closeGraceMs);
    await this.settled();
    clearTimeout(grace);
  }

  /** Sends every waiting burst now, leaving the notifier open for more (a process that goes on, as the engine server). */
  sendWaiting(): void {
    for (const runId of this.runs.keys()) this.flush(runId);
  }

  /** Resolves once every delivery started so far has ended (delivered, failed or abandoned). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private burstOf(session: RunSession): RunBurst {
    let burst = this.runs.get(session.runId);
    if (!burst) this.runs.set(session.runId, (burst = { session, memory: noticeMemoryOf(session.state), pending: [] }));
    burst.session = session;
    return burst;
  }

  private flush(runId: string): void {
    const burst = this.runs.get(runId);
    if (!burst?.latest) return;
    clearTimeout(burst.timer);
    burst.timer = undefined;
    const state = burst.latest;
    // A plan approved within the window (autopilot, or a quick person) no longer waits for anyone.
    const notices = burst.pending.filter((notice) => notice.kind !== 'plan_ready' || !state.planApproved);
    burst.pending = [];
    if (notices.length === 0) return;
    const message = noticeMessage(runId, state.goal, notices);
    for (const target of this.targets) {
      if (this.inFlight.size >= this.options.maxInFlight) {
        this.fail(runId, `a notification to ${target.shown} was dropped: ${counted(this.inFlight.size, 'message')} still being delivered`);
        continue;
      }
      const delivery = this.deliver(runId, target, notifyRequest(target, runId, state.goal, message)).finally(() => this.inFlight.delete(delivery));
      this.inFlight.add(delivery);
    }
  }

  private async deliver(runId: string, target: NotifyTarget, request: NotifyRequest): Promise<void> {
    let lastProblem = '';
    for (let attempt = 1; attempt <= this.options.tries; attempt++) {
      if (attempt > 1 && !(await this.wait(this.options.backoffMs * 2 ** (attempt - 2)))) break;
      const problem = await this.tryOnce(request);
      if (problem === undefined) return;
      lastProblem = problem;
      if (this.abort.signal.aborted) break;
    }
    const why = this.abort.signal.aborted ? 'abandoned when Taskloom stopped' : `not delivered after ${counted(this.options.tries, 'try', 'tries')}`;
    this.fail(runId, `notification to ${target.shown} ${why}${lastProblem ? ` (${lastProblem})` : ''}`);
  }

  /** One POST: undefined when the receiver took it, else what went wrong (no URL: it holds the token). */
  private async tryOnce(request: NotifyRequest): Promise<string | undefined> {
    try {
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.tryTimeoutMs)]);
      const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, signal });
      await response.body?.cancel();
      return response.ok ? undefined : `the receiver answered ${response.status}`;
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError') return `no answer within ${this.options.tryTimeoutMs / 1000} s`;
      if (name === 'AbortError') return 'stopped waiting for an answer';
      const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      return code ? `cannot connect: ${code}` : 'cannot connect';
    }
  }

  /** Waits `ms` unless the notifier is closing; says whether to go on. */
  private wait(ms: number): Promise<boolean> {
    if (this.abort.signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = unref(setTimeout(() => resolve(true), ms));
      this.abort.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(false)), { once: true });
    });
  }

  private fail(runId: string, message: string): void {
    // Later, not inside the emit of the event that caused it: listeners see events in log order.
    queueMicrotask(() => {
      try {
        this.runs.get(runId)?.session.emit({ type: 'warning', message });
      } catch {
        // The run's store may be closed by now; delivery never fails anything.
      }
    });
  }
}

/** A timer that does not keep the process alive: a CLI that is done exits without waiting on word to a target. */
function unref(timer: NodeJS.Timeout): NodeJS.Timeout {
  timer.unref();
  return timer;
}
