import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { DEMO_FILES, DEMO_PLAN, demoScenario } from '../../src/engine/demo/demoProject';
import type { RunEvent } from '../../src/engine/domain/events';
import { foldEvents } from '../../src/engine/domain/projection';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs, type CliResult, type startCli } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * Shared pieces of the crash and fault tests (the kill, storage and agent campaigns):
 * the campaign's workspace (repository, plan, scenario), reading the event log, and the end
 * state compared with the reference's after a resume.
 */

const CAMPAIGN_FILES = DEMO_FILES;

/**
 * Two independent tasks that edit the same README line, so the second one merged conflicts, and
 * the demo's five tasks after the first of them (a gate failure in word-count, changes required in
 * title-case, dependencies summary → cli); slugify runs as two candidates, so a kill can land among them.
 */
const CAMPAIGN_PLAN = {
  ...DEMO_PLAN,
  // The README tasks are the only ones ready at the start (the demo's tasks wait for readme-intro),
  // so they start together from the run's base whatever the timing: started later, the second would
  // start from the first's merge, its scripted patch would find nothing, and there'd be no conflict.
  tasks: [
    {
      id: 'readme-intro',
      title: 'Reword the README intro',
      description: 'Rewrite the README tagline.',
      acceptance: ['the README tagline mentions slugs'],
      dependsOn: [],
      files: ['README.md'],
    },
    {
      id: 'readme-usage',
      title: 'Point the README at the command',
      description: 'Rewrite the README tagline to mention the textkit command.',
      acceptance: ['the README tagline mentions the command'],
      dependsOn: [],
      files: ['README.md'],
    },
    ...DEMO_PLAN.tasks.map((t) => (t.dependsOn.length ? t : { ...t, dependsOn: ['readme-intro'], ...(t.id === 'slugify' ? { candidates: 2 } : {}) })),
  ],
};

function campaignScenario(delayMs: number) {
  const base = demoScenario(delayMs);
  const tagline = "Small text helpers, grown by Taskloom's demo.";
  const intro = 'Slugs, word counts and title case for any text.';
  const usage = 'Run `textkit <text>` for a slug and a summary.';
  // Unscripted, the resolver keeps both sides of each conflict (see integratedTree for the order).
  const readme = (replace: string) => ({
    actor: [{ patch: [{ path: 'README.md', find: tagline, replace }], text: 'Reworded.' }],
    critic: [{ verdict: { decision: 'green', summary: 'ok', findings: [] } }],
  });
  return {
    ...base,
    tasks: {
      ...base.tasks,
      'readme-intro': readme(intro),
      'readme-usage': readme(usage),
    },
  };
}

export interface CampaignWorkspace {
  /** A fresh copy of the sample repository. */
  repo: TempRepo;
  /** The scenario file's path: every agent the run starts names it on its command line. */
  scenario: string;
  /** The `taskloom run` of the campaign's plan and scenario in `repo`. */
  run: string[];
}

/** Where one run of the campaign (the reference, or one to be killed) happens, with its own delay per scripted step. */
export function campaignWorkspace(delayMs: number): CampaignWorkspace {
  const inputs = writeInputs({ 'plan.json': CAMPAIGN_PLAN, 'scenario.json': campaignScenario(delayMs) });
  const repo = makeTempRepo({ files: CAMPAIGN_FILES });
  const scenario = inputs['scenario.json']!;
  // `--overlap off`: the two README tasks run side by side, so the merge queue meets their conflict and resolves it.
  const run = ['run', '--cwd', repo.dir, '--plan', inputs['plan.json']!, '--script', scenario, '--yes', '--parallel', '2', '--gate', 'node --test', '--overlap', 'off'];
  return { repo, scenario, run };
}

/** The reference run's end state and events, once its log is found sound: a broken reference would spoil every comparison. */
export function readReference(repo: TempRepo): { end: EndState; events: RunEvent[] } {
  const problems = logProblems(repo.dir);
  if (problems.length > 0) throw new Error(`the reference run's log has problems: ${problems.join('; ')}`);
  return { end: endState(repo), events: readEvents(repo.dir) };
}

/** How a run, resumed to its end, differs from the reference's end: processes left running, its end state, its log. */
export async function differencesFromReference(workspace: CampaignWorkspace, reference: EndState): Promise<string[]> {
  const problems = await noLeftoverProcesses(workspace.scenario);
  try {
    problems.push(...diffStates(reference, endState(workspace.repo)));
  } catch (err) {
    problems.push(`end state unreadable: ${(err as Error).message.split('\n')[0]}`);
  }
  problems.push(...logProblems(workspace.repo.dir));
  return problems;
}

export function eventsFile(dir: string): string | undefined {
  const runs = join(dir, '.taskloom', 'runs');
  if (!existsSync(runs)) return undefined;
  const [runId] = readdirSync(runs);
  if (!runId) return undefined;
  const file = join(runs, runId, 'events.jsonl');
  return existsSync(file) ? file : undefined;
}

/** The parsed complete lines of the run's log (a torn last line is left out). */
export function readEvents(dir: string): RunEvent[] {
  const file = eventsFile(dir);
  if (!file) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as RunEvent];
      } catch {
        return [];
      }
    });
}

/** Number of complete (newline-terminated) lines in the log: events that are durable. */
export function durableLineCount(dir: string): number {
  const file = eventsFile(dir);
  if (!file) return 0;
  const text = readFileSync(file, 'utf8');
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export interface EndState {
  status: string;
  states: Record<string, string>;
  tree: string;
  /** Merge commits on the integration branch's first-parent line, per task (from the subject). */
  mergesPerTask: Record<string, number>;
  mergeCount: number;
  /**
   * Whether each MERGED task's branch tip is in the integration branch. Not the tip's tree: a task
   * starts from the integration branch as it is when the task starts, which depends on timing.
   */
  mergedBranches: Record<string, { inIntegration: boolean }>;
  conflicts: string[];
  worktrees: string[];
}

/** The last path segment of every worktree of the repository but its main one, in git's order. */
export function otherWorktreeNames(r: TempRepo): string[] {
  return r
    .git(['worktree', 'list', '--porcelain'])
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .filter((p) => p !== r.dir)
    .map((p) => p.split('/').at(-1)!);
}

/**
 * The integration branch's tree, with the README's lines in sorted order: the README is where the
 * campaign's tasks meet, a resolver keeps both sides (its own lines first), and which task resolves
 * depends on which merged first. Every other file must be byte for byte the same.
 */
function integratedTree(r: TempRepo, branch: string): string {
  return r
    .git(['ls-tree', '-r', branch])
    .split('\n')
    .map((line) => {
      if (!line.endsWith('\tREADME.md')) return line;
      const lines = r.git(['show', `${branch}:README.md`]).split('\n').sort();
      return `README.md sorted: ${createHash('sha256').update(lines.join('\n')).digest('hex')}`;
    })
    .join('\n');
}

/** The task of each merge commit on the integration branch's first-parent line, from its Taskloom-Task trailer. */
export function integrationMerges(r: TempRepo, branch: string): string[] {
  return r
    .git(['log', '--merges', '--first-parent', '--format=%(trailers:key=Taskloom-Task,valueonly,separator=)', branch])
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

export function endState(r: TempRepo): EndState {
  const t = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  const branch = t.integration.branch!;
  const worktrees = otherWorktreeNames(r).sort();
  const merged = integrationMerges(r, branch);
  const mergesPerTask: Record<string, number> = {};
  for (const task of t.tasks) mergesPerTask[task.id] = merged.filter((id) => id === task.id).length;
  const mergedBranches: EndState['mergedBranches'] = {};
  for (const task of t.tasks) {
    if (task.state !== 'MERGED') continue;
    const ref = task.branch ?? `taskloom/${t.runId}/${task.id}`;
    let inIntegration = true;
    try {
      r.git(['merge-base', '--is-ancestor', ref, branch]);
    } catch {
      inIntegration = false;
    }
    mergedBranches[task.id] = { inIntegration };
  }
  return {
    status: t.status,
    states: Object.fromEntries(t.tasks.map((x) => [x.id, x.state])),
    tree: integratedTree(r, branch),
    mergesPerTask,
    mergeCount: merged.length,
    mergedBranches,
    conflicts: (t.integration.conflicts ?? []).map((c) => (typeof c === 'string' ? c : (c as { taskId: string }).taskId)).sort(),
    worktrees,
  };
}

/** Problems of the log itself: unparsable lines, gaps in seq, a projection that throws. */
export function logProblems(dir: string): string[] {
  const file = eventsFile(dir);
  if (!file) return ['no event log'];
  const problems: string[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const events: RunEvent[] = [];
  lines.forEach((l, i) => {
    if (!l.trim()) return;
    try {
      events.push(JSON.parse(l) as RunEvent);
    } catch {
      problems.push(`line ${i + 1} is not JSON: ${l.slice(0, 80)}`);
    }
  });
  events.forEach((e, i) => {
    if (i > 0 && e.seq !== events[i - 1]!.seq + 1) problems.push(`seq ${e.seq} follows ${events[i - 1]!.seq}`);
  });
  try {
    foldEvents(events);
  } catch (err) {
    problems.push(`projection throws: ${(err as Error).message}`);
  }
  const merges = events.filter((e) => e.type === 'merge_done' && !e.alreadyMerged).map((e) => (e as { taskId: string }).taskId);
  if (new Set(merges).size !== merges.length) problems.push(`a task merged twice: ${merges.join(', ')}`);
  return problems;
}

/** Pids of live processes whose command line contains `needle`. */
export function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle)) found.push(`${pid}: ${cmd.slice(0, 160)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const KILLER = join(__dirname, 'killAt.mjs');

/** What killAt.mjs watches for before it SIGKILLs the group (see there). */
export interface KillSpec {
  lines?: number;
  type?: string;
  where?: Record<string, unknown>;
  occurrence?: number;
  delayMs?: number;
}

/** Starts killAt.mjs on the run in `dir`: it SIGKILLs the process group `pgid` at `spec`. */
export function startKiller(dir: string, pgid: number, spec: KillSpec): Promise<{ killed: boolean; lines?: number }> {
  return new Promise((resolve) => {
    const k = spawn(process.execPath, [KILLER, dir, String(pgid), JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    k.stdout.on('data', (c) => (out += c));
    k.on('close', () => {
      try {
        resolve(JSON.parse(out) as { killed: boolean; lines?: number });
      } catch {
        resolve({ killed: false });
      }
    });
  });
}

/** How an end state differs from the reference's, one line per field. */
export function diffStates(expected: EndState, actual: EndState): string[] {
  const out: string[] = [];
  for (const key of Object.keys(expected) as Array<keyof EndState>) {
    if (!isDeepStrictEqual(expected[key], actual[key])) {
      out.push(`${key}: expected ${JSON.stringify(expected[key])}, got ${JSON.stringify(actual[key])}`);
    }
  }
  return out;
}

/**
 * Processes whose command line mentions `needle`, once given a few seconds: an agent or gate
 * orphaned by a kill runs in its own process group, finishes its (short) step and exits.
 */
export async function noLeftoverProcesses(needle: string): Promise<string[]> {
  for (let waited = 0; waited < 5_000; waited += 100) {
    if (processesMentioning(needle).length === 0) return [];
    await sleep(100);
  }
  return processesMentioning(needle).map((p) => `process left behind: ${p}`);
}

/** A started CLI whose process group is SIGKILLed once it runs past `ms`: a hung run must not hang a campaign. */
export function withDeadline(started: ReturnType<typeof startCli>, ms: number): { pid: number; result: Promise<CliResult> } {
  const { child, done } = started;
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, ms);
  return { pid: child.pid!, result: done.finally(() => clearTimeout(timer)) };
}
