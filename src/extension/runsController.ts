import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunFacts } from '../engine/domain/runActions';
import type { RunState } from '../engine/domain/runState';
import { GetRunRequest, ListRunsRequest, type ListRunsResult } from '../protocol/engineProtocol';
import type { EngineClient } from './connection/engineClient';
import { errorWords } from './connection/errorNotice';
import { Disposable } from './disposable';
import { log } from './logger';
import { runFactsOf } from './state/runFacts';
import { RunsModel, type RunEntry } from './state/runsModel';

/**
 * Keeps the RunsModel in step with the engine: run lists per folder, full states for the runs
 * someone looks at, live events folded on top, and a full re-read after an engine restart or
 * when events arrive with a gap.
 */
export class RunsController extends Disposable {
  readonly model = new RunsModel();
  /** Per folder: another process drives it (the lock holder, for the user), if any. */
  readonly drivenElsewhere = new Map<string, string>();
  /** Per folder: whether its repository has the remote pull requests are pushed to, as last listed. */
  private readonly pullRequestRemotes = new Map<string, boolean>();
  private readonly fetching = new Map<string, Promise<RunState | undefined>>();
  /** Folders whose runs were listed at least once (or that cannot have any): until all are, the views say they are loading. */
  private readonly listed = new Set<string>();

  constructor(private readonly engine: EngineClient) {
    super();
    // Another process (the CLI, another window) taking or letting go of a workspace: list its
    // runs again, which also has the engine send that process's events here as they are written.
    const lockWatcher = this._register(vscode.workspace.createFileSystemWatcher('**/.taskloom/lock', false, true, false));
    const onLock = (uri: vscode.Uri) => {
      // The folder whose own .taskloom/lock it is: by path, so /ws/app does not claim /ws/app2's.
      const folder = this.folders().find((f) => join(f, '.taskloom', 'lock') === uri.fsPath);
      if (folder) void this.refresh(folder);
    };
    this._register(lockWatcher.onDidCreate(onLock));
    this._register(lockWatcher.onDidDelete(onLock));
    this._register(
      engine.onEvents(({ folder, runId, events }) => {
        if (!this.model.applyEvents(folder, runId, events)) void this.loadRun(folder, runId);
      }),
    );
    this._register(engine.onDidStop(() => this.model.markAllStopped()));
    // What the agents print, as they print it: the output channel shows a long step is alive.
    this._register(engine.onActivity(({ runId, taskId, line }) => log.info(`${runId} ${taskId ?? '(run)'} ${line}`)));
    this._register(engine.onDidRestart(() => void this.refreshAll({ reloadStates: true })));
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders(({ removed }) => {
        for (const folder of removed) this.model.removeFolder(folder.uri.fsPath);
        void this.refreshAll();
      }),
    );
  }

  /** Workspace folders on disk (virtual folders cannot hold git worktrees), minus task worktrees added to the workspace. */
  folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file' && !/[\\/]\.taskloom[\\/]worktrees[\\/]/.test(f.uri.fsPath))
      .map((f) => f.uri.fsPath);
  }

  async refreshAll(options: { reloadStates?: boolean } = {}): Promise<void> {
    await Promise.all(this.folders().map((folder) => this.refresh(folder)));
    if (!options.reloadStates) return;
    for (const entry of this.model.allRuns()) if (entry.state) await this.loadRun(entry.folder, entry.summary.runId);
  }

  /**
   * Lists the folder's runs again. The first listing leaves out the disk their worktrees take
   * (walking them can take seconds), so the views show the runs at once; it follows in the background.
   */
  async refresh(folder: string): Promise<ListRunsResult | undefined> {
    const first = !this.listed.has(folder);
    const result = await this.list(folder, first);
    if (first && result) void this.list(folder, false);
    return result;
  }

  private async list(folder: string, skipDiskUsage: boolean): Promise<ListRunsResult | undefined> {
    try {
      const result = await this.engine.request(ListRunsRequest.type, { folder, ...(skipDiskUsage ? { skipDiskUsage } : {}) });
      for (const warning of result.warnings) log.warn(`${folder}: ${warning}`);
      if (result.drivenElsewhere) this.drivenElsewhere.set(folder, result.drivenElsewhere);
      else this.drivenElsewhere.delete(folder);
      this.pullRequestRemotes.set(folder, result.hasPullRequestRemote);
      this.model.setRuns(folder, result.runs);
      return result;
    } catch (error) {
      // A folder that is not a git repository has no runs; say so once in the log.
      log.info(`${folder}: runs not listed (${errorWords(error)})`);
      this.model.setRuns(folder, []);
      return undefined;
    } finally {
      this.markListed(folder);
    }
  }

  /** The folder's runs are known: listed, or known to be none (it has no `.taskloom` folder). */
  markListed(folder: string): void {
    this.listed.add(folder);
  }

  /** Every folder's runs are known: "no runs" is now true when the views say it. */
  get allListed(): boolean {
    return this.folders().every((folder) => this.listed.has(folder));
  }

  /** What the actions' rules (domain/runActions.ts) know of the run in this window. */
  facts(entry: RunEntry): RunFacts {
    return runFactsOf(entry, this.hasPullRequestRemote(entry.folder));
  }

  /** Whether the folder's repository has the remote pull requests are pushed to, as last listed (undefined: not listed yet). */
  hasPullRequestRemote(folder: string): boolean | undefined {
    return this.pullRequestRemotes.get(folder);
  }

  /** The run's full state, fetched once and then kept current by events. */
  async state(folder: string, runId: string): Promise<RunState | undefined> {
    const entry = this.model.run(folder, runId);
    if (entry?.state && !this.model.isStale(folder, runId)) return entry.state;
    return this.loadRun(folder, runId);
  }

  loadRun(folder: string, runId: string): Promise<RunState | undefined> {
    const key = `${folder}\u0000${runId}`;
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = this.engine
        .request(GetRunRequest.type, { folder, runId })
        .then((state) => {
          this.model.setState(folder, state);
          return state;
        })
        .catch((error: unknown) => {
          log.warn(`run ${runId} could not be loaded: ${errorWords(error)}`);
          return undefined;
        })
        .finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return pending;
  }
}
