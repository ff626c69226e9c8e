import type { RunStatsParams, RunStatsResult } from '../../protocol/engineProtocol';
import { runStats } from '../usecases/runStats';
import type { WorkspaceHosts } from './workspaceHosts';

/** What the folder's runs cost and how they went (src/engine/usecases/runStats.ts): the same figures as `taskloom stats --json`. */
export async function runStatsRequest(hosts: WorkspaceHosts, params: RunStatsParams): Promise<RunStatsResult> {
  const host = await hosts.forFolder(params.folder);
  return runStats(host.root, { ...(params.since !== undefined ? { since: params.since } : {}), ...(params.runIds ? { runIds: params.runIds } : {}) });
}
