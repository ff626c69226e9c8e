import { isAbsolute, resolve } from 'node:path';
import { Notifier } from '../notify/notifier';
import { parseNotifyTarget } from '../notify/notifyTargets';
import { repositoryTop } from '../workspace/repoInspector';
import type { EventBatcher } from './eventBatcher';
import type { ServerOutput } from './serverOutput';
import { UserError } from './userError';
import { WorkspaceHost } from './workspaceHost';

/**
 * One WorkspaceHost per repository, whatever folder of it the editor names: two workspace
 * folders inside one repository share its lock, its store and its runs.
 */
export class WorkspaceHosts {
  private readonly hosts = new Map<string, WorkspaceHost>();
  private readonly roots = new Map<string, string>();
  /** Sends word of every run driven here (one for all repositories: it keys its bursts by run). */
  private notifier: Notifier | undefined;

  constructor(
    private readonly batcher: EventBatcher,
    private readonly output: ServerOutput,
  ) {}

  async forFolder(folder: unknown): Promise<WorkspaceHost> {
    if (typeof folder !== 'string' || !isAbsolute(folder)) {
      throw new UserError(`The workspace folder must be an absolute path, got ${JSON.stringify(folder)}`);
    }
    const root = this.roots.get(folder) ?? (await this.rootOf(folder));
    let host = this.hosts.get(root);
    if (!host) {
      host = new WorkspaceHost(root, this.batcher, this.output, () => this.notifier);
      this.hosts.set(root, host);
    }
    return host;
  }

  /**
   * Where word of runs goes from the next engine open on (an engine open now keeps the targets it
   * was opened with until it closes, when its work ends). All are read first: a bad one
   * (NotifyTargetError) changes nothing.
   */
  setNotifyTargets(urls: readonly string[]): void {
    const targets = urls.map(parseNotifyTarget);
    this.notifier = targets.length > 0 ? new Notifier(targets) : undefined;
  }

  async shutdown(graceMs: number): Promise<void> {
    await Promise.all([...this.hosts.values()].map((host) => host.shutdown(graceMs)));
  }

  /**
   * The repository's top folder; a folder that is not (yet) in a repository stands for itself,
   * and opening it reports why it cannot be used. Only a real answer is remembered.
   */
  private async rootOf(folder: string): Promise<string> {
    const root = await repositoryTop(folder);
    if (!root) return resolve(folder);
    this.roots.set(folder, root);
    return root;
  }
}
