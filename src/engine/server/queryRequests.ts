import { existsSync } from 'node:fs';
import {
  PULL_REQUEST_REMOTE,
  type PredictedOverlaps,
  type DiffParams,
  type DiffResult,
  type DoctorCheck,
  type FileAtCommitParams,
  type FolderParams,
  type ListRunsParams,
  type ListRunsResult,
  type RunEventParams,
  type RunListEntry,
  type RunParams,
  type TranscriptParams,
  type TranscriptResult,
} from '../../protocol/engineProtocol';
import { EDITOR_SETTING_KEYS, type RunSettings } from '../../protocol/runSettings';
import { runConfigFromSettings, SettingsError } from '../run/runConfigFromSettings';
import { ConfigFileError } from '../run/configFile/readConfigFile';
import { editorRunSettings } from './editorSettings';
import type { RunEvent } from '../domain/events';
import type { RunState } from '../domain/runState';
import { doctorVerdict, runDoctorChecks, type DoctorOptions } from '../doctor/doctorChecks';
import { diffBetween, diffOfRun } from '../run/runDiff';
import { reviewedRange } from '../run/reviewedDiff';
import { predictRunOverlaps } from '../run/runOverlaps';
import { RunNotFoundError, type RunStore } from '../store/runStore';
import { readFileAtCommit } from '../workspace/readFileAtCommit';
import { RunDiskUsage } from '../workspace/runDiskUsage';
import { UserError } from './userError';
import type { WorkspaceHosts } from './workspaceHosts';
import * as readRuns from '../usecases/readRuns';
import { remoteUrl } from '../workspace/pushBranch';

/** One per server: remembers each run's measurement until its worktrees change. */
const diskUsage = new RunDiskUsage();

/** The runs of the folder's repository, newest first (src/engine/usecases/readRuns.ts), with who drives them and (unless skipped) the disk they hold. */
export async function listRuns(hosts: WorkspaceHosts, params: ListRunsParams): Promise<ListRunsResult> {
  const host = await hosts.forFolder(params.folder);
  const states = new Map<string, RunState>();
  const result = await host.withStore((store, warnings) => {
    const listing = readRuns.listRuns(store);
    const runs = listing.runs.map(({ state, ...listed }): RunListEntry => {
      if (state) states.set(listed.runId, state);
      return { ...listed, active: host.activeWork(listed.runId) !== undefined };
    });
    const elsewhere = host.drivenElsewhere();
    // The editor watches such a run live, read-only, until the other process lets go.
    if (elsewhere) host.followElsewhere(params.folder);
    return { runs, ...(elsewhere ? { drivenElsewhere: elsewhere } : {}), hasPullRequestRemote: false, warnings: [...warnings, ...listing.warnings] };
  });
  result.hasPullRequestRemote = (await remoteUrl(host.root, PULL_REQUEST_REMOTE)) !== undefined;
  if (params.skipDiskUsage) return result;
  // Measured outside the store: walking worktrees must not hold up a run being driven.
  for (const run of result.runs) {
    const state = states.get(run.runId);
    if (state) run.diskBytes = (await diskUsage.of(host.root, state)).bytes;
  }
  return result;
}

/** The run's whole projected state; the editor folds later EventsNotifications onto it. */
export async function getRun(hosts: WorkspaceHosts, params: RunParams): Promise<RunState> {
  const host = await hosts.forFolder(params.folder);
  return host.withStore((store) => readRuns.getRun(store, params));
}

/** The overlaps the run's plan predicts, for the plan approval view. */
export async function predictOverlaps(hosts: WorkspaceHosts, params: RunParams): Promise<PredictedOverlaps> {
  const host = await hosts.forFolder(params.folder);
  const state = await host.withStore((store) => store.loadRun(params.runId).state);
  return { mode: state.config.overlap ?? 'off', pairs: await predictRunOverlaps(state, { root: host.root }) };
}

/** The files a task (or the whole run, on its integration branch) changed, and what is left uncommitted. */
export async function diff(hosts: WorkspaceHosts, params: DiffParams): Promise<DiffResult> {
  const host = await hosts.forFolder(params.folder);
  const runId = params.runId;
  const state = await host.withStore((store) => store.loadRun(runId).state);
  const { taskId, reviewSeq, candidate } = params;
  if (candidate !== undefined && taskId !== undefined) return candidateDiff(state, host.root, taskId, candidate);
  if (reviewSeq === undefined || taskId === undefined) return diffOfRun(state, host.root, taskId ?? undefined);
  if (!Number.isInteger(reviewSeq) || reviewSeq < 1) throw new UserError(`Not an event number: ${JSON.stringify(reviewSeq)}`);
  const events = await host.withStore((store) => eventsUpTo(store, runId, reviewSeq));
  const review = events.at(-1);
  if (review?.seq !== reviewSeq || review.type !== 'critic_verdict' || review.taskId !== taskId) {
    throw new UserError(`Ledger entry #${reviewSeq} is not a critic review of "${taskId}"`, 'Open the diff from a critic entry of that task.');
  }
  const range = reviewedRange(events, taskId, reviewSeq);
  if (!range) return { ...(await diffOfRun(state, host.root, taskId)), review: { number: review.review, source: 'unrecorded' } };
  return { ...(await diffBetween(host.root, range.base, range.head)), review: { number: range.review, source: range.source } };
}

/** What candidate `candidate` of `taskId` built: its commit against the commit the task started from. */
async function candidateDiff(state: RunState, root: string, taskId: string, candidate: number): Promise<DiffResult> {
  const entries = state.tasks[taskId]?.candidates?.entries ?? [];
  const entry = entries.find((c) => c.candidate === candidate);
  if (!entry?.commit) {
    const withWork = entries.filter((c) => c.commit).map((c) => c.candidate);
    throw new UserError(`Task "${taskId}" has no candidate ${candidate} with committed work`, `Its candidates with work: ${withWork.join(', ') || 'none'}.`);
  }
  return diffBetween(root, entry.baseCommit, entry.commit);
}

/** The run's events from the first to `seq`, read no further. */
function eventsUpTo(store: RunStore, runId: string, seq: number): RunEvent[] {
  const events: RunEvent[] = [];
  try {
    store.events(runId, {
      onEvent: (event) => {
        if (event.seq > seq) throw FOUND;
        events.push(event);
      },
    });
  } catch (error) {
    if (error !== FOUND) throw error;
  }
  return events;
}

/** A file's content at a commit (null when it has no such file), for the editor's diff view. */
export async function fileAtCommit(hosts: WorkspaceHosts, params: FileAtCommitParams): Promise<{ content: string | null }> {
  const path = typeof params.path === 'string' ? params.path.replaceAll('\\', '/') : '';
  if (!path || path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.split('/').includes('..')) {
    throw new UserError(`Not a path inside the repository: ${JSON.stringify(params.path)}`, 'Give a path relative to the repository root, without "..".');
  }
  const commit = typeof params.commit === 'string' ? params.commit : '';
  // A revision, never an option or a range.
  if (!/^[A-Za-z0-9][A-Za-z0-9._/^~-]*$/.test(commit) || commit.includes('..')) {
    throw new UserError(`Not a commit: ${JSON.stringify(params.commit)}`);
  }
  const host = await hosts.forFolder(params.folder);
  return { content: await readFileAtCommit(host.root, commit, path) };
}

/** The doctor's checks for the folder, with the agent paths from the settings (never a probe call). */
export async function doctor(params: FolderParams & { settings?: Partial<RunSettings>; workspaceTrusted?: boolean }): Promise<{ checks: DoctorCheck[]; verdict: string }> {
  if (typeof params.folder !== 'string' || params.folder === '') throw new UserError('A workspace folder is needed');
  const options = doctorSettings(params.folder, params.settings, params.workspaceTrusted === true);
  const checks = await runDoctorChecks(params.folder, options);
  return { checks, verdict: doctorVerdict(checks, options.config) };
}

/** The run config these settings (over the folder's taskloom.json) make, where each came from, or why they make none: the doctor checks what a run would use. */
function doctorSettings(folder: string, settings: Partial<RunSettings> | undefined, workspaceTrusted: boolean): DoctorOptions {
  try {
    const editor = editorRunSettings(folder, (settings ?? {}) as RunSettings, workspaceTrusted);
    const { values, sources, withheld, file } = editor.layered;
    const provenance = { values, sources, ...(withheld.length ? { leftOut: { file: file!, keys: withheld.map((w) => w.key), why: 'workspace_untrusted' as const } } : {}) };
    try {
      return { provenance, config: runConfigFromSettings(editor.settings, { baseDir: folder, repoRoot: folder, labels: EDITOR_SETTING_KEYS }) };
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      return { provenance, settingsProblem: { message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
    }
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    return { settingsProblem: { message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
  }
}

const FOUND = Symbol('found');

/** One event of a run's log by its seq (a gate result's full output, say); null when there is none. */
export async function runEvent(hosts: WorkspaceHosts, params: RunEventParams): Promise<RunEvent | null> {
  const host = await hosts.forFolder(params.folder);
  const seq = params.seq;
  if (typeof seq !== 'number' || !Number.isInteger(seq)) throw new UserError(`Not an event number: ${JSON.stringify(seq)}`);
  return host.withStore((store) => {
    const runId = params.runId;
    if (seq < 1) {
      if (!existsSync(store.runPaths(runId).events)) throw new RunNotFoundError(runId);
      return null;
    }
    let found: RunEvent | null = null;
    try {
      // Lines before it are skipped unparsed; the read stops at the event itself.
      store.events(runId, {
        afterSeq: seq - 1,
        onEvent: (event) => {
          found = event.seq === seq ? event : null;
          throw FOUND;
        },
      });
    } catch (error) {
      if (error !== FOUND) throw error;
    }
    return found;
  });
}

/** At most this many batches per request: every batch of a few calls (a call has at most ~250). */
const MAX_TRANSCRIPT_BATCHES = 5000;

/** Transcript batches by seq, read from the log without parsing the lines between them. */
export async function transcript(hosts: WorkspaceHosts, params: TranscriptParams): Promise<TranscriptResult> {
  const seqs = new Set(Array.isArray(params.seqs) ? params.seqs.filter((seq) => Number.isInteger(seq) && seq > 0) : []);
  if (seqs.size > MAX_TRANSCRIPT_BATCHES) throw new UserError(`At most ${MAX_TRANSCRIPT_BATCHES} transcript batches at a time, not ${seqs.size}`);
  const host = await hosts.forFolder(params.folder);
  return host.withStore((store) => {
    const runId = params.runId;
    if (seqs.size === 0) {
      if (!existsSync(store.runPaths(runId).events)) throw new RunNotFoundError(runId);
      return { batches: [] };
    }
    const batches = store.events(runId, { seqs }).events.flatMap((e) =>
      e.type === 'agent_transcript' ? [{ seq: e.seq, call: e.call ?? e.seq, lines: e.lines, ...(e.omitted ? { omitted: e.omitted } : {}) }] : [],
    );
    return { batches };
  });
}
