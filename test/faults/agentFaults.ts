import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, RunnerStatus } from '../../src/engine/domain/events';
import type { TaskEvent } from '../../src/engine/domain/taskStates';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { startCli, type CliResult } from '../helpers/cli';
import { makeTempRepo } from '../helpers/tempRepo';
import { logProblems, processesMentioning, readEvents } from './faultHelpers';
import { formatFaultTable, type FaultRow } from './faultTable';

/**
 * The agent fault campaign: a misbehaving agent (a node script run by the `command` adapter)
 * crashes, hangs silently, prints garbage or control junk, streams forever, exits 0 with an
 * error payload, or ignores SIGINT/SIGTERM — as the actor, or as the critic. Each fault is one
 * real `taskloom run` of a one-task plan in a fresh repository, checked for:
 *   1. a clear end: the task in NEEDS_HUMAN through the expected event, the call's status and
 *      a reason that says what happened;
 *   2. the agent's last output kept: a marker line it printed just before failing is in the
 *      transition's reason, the runner_call's detail and `trace --json`;
 *   3. no process left: the agent starts a helper in its group and one in a session of its own
 *      (out of the group's reach), each with the marker in its argv; none may survive the CLI;
 *   4. the CLI exits 1 ("needs a human") before a generous deadline, says so on stdout with the
 *      marker, and prints no terminal control characters the agent sent.
 */

const TASK = 'fault-task';
const PLAN = {
  goal: 'Survive a misbehaving agent',
  tasks: [
    {
      id: TASK,
      title: 'Write work.txt',
      description: 'Create work.txt saying done.',
      acceptance: ['work.txt exists'],
      dependsOn: [],
      files: ['work.txt'],
    },
  ],
};

/** The misbehaving agent: `agent.mjs <actor mode> <critic mode> <marker> <role> <prompt file>`. */
const AGENT = String.raw`
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const [actorMode, criticMode, marker, role] = process.argv.slice(2);
const mode = role === 'critic' ? criticMode : actorMode;
const say = (line) => process.stdout.write(line + '\n');
const last = 'LAST-WORDS ' + marker;
const TRAP = 'process.on("SIGINT", () => {}); process.on("SIGTERM", () => {});';
// Helpers that outlive their parent unless stopped: one in the agent's process group, one in
// a session of its own (setsid), both with the marker in their argv.
function helpers(trapSignals = false) {
  const code = (trapSignals ? TRAP : '') + 'setInterval(() => {}, 1000);';
  spawn(process.execPath, ['-e', code, marker, 'in-group'], { stdio: 'ignore' });
  spawn(process.execPath, ['-e', code, marker, 'own-session'], { stdio: 'ignore', detached: true }).unref();
}
const exitSoon = (code) => setTimeout(() => process.exit(code), 200);
switch (mode) {
  case 'ok':
    if (role === 'critic') say(JSON.stringify({ decision: 'green', summary: 'looks fine', findings: [] }));
    else { writeFileSync('work.txt', 'done\n'); say('wrote work.txt'); }
    break;
  case 'exit1':
    helpers();
    for (let i = 1; i <= 40; i++) say('step ' + i);
    say(last);
    exitSoon(1);
    break;
  case 'sigkill':
    helpers();
    for (let i = 1; i <= 40; i++) say('step ' + i);
    process.stdout.write(last + ' (cut off mid-li');
    process.kill(process.pid, 'SIGKILL');
    break;
  case 'hang':
    helpers();
    say(last);
    setInterval(() => {}, 1000);
    break;
  case 'endless': {
    helpers();
    say(last);
    let i = 0;
    // Every line carries the marker: whatever the last lines are when it is stopped, they must be kept.
    setInterval(() => say('still going ' + i++ + ' ' + marker), 20);
    break;
  }
  case 'garbage':
    helpers();
    say('The change looks fine to me, {decision: green, no findings');
    say(last);
    exitSoon(0);
    break;
  case 'junk':
    helpers();
    process.stdout.write(Buffer.from([0x00, 0x01, 0x07, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0x0a]));
    say('\x1b[31mred\x1b[0m \x1b]0;pwned title\x07\x1b[2J\x1b[H' + last);
    exitSoon(1);
    break;
  case 'errorPayload':
    helpers();
    say('thinking…');
    say(last);
    say(JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'API Error: 529 overloaded' }));
    exitSoon(0);
    break;
  case 'ignoreSignals':
    helpers(true);
    process.on('SIGINT', () => say('ignoring SIGINT'));
    process.on('SIGTERM', () => say('ignoring SIGTERM'));
    say(last);
    setInterval(() => {}, 1000);
    break;
  default:
    console.error('unknown mode ' + mode);
    process.exit(2);
}
`;

type Mode = 'ok' | 'exit1' | 'sigkill' | 'hang' | 'endless' | 'garbage' | 'junk' | 'errorPayload' | 'ignoreSignals';

interface FaultCase {
  kind: string;
  actor: Mode;
  critic: Mode;
  /** Small where the idle watchdog is the point; large where it must not interfere. */
  stuckSeconds: number;
  /** The role whose call fails, the status recorded for it and the transition that ends the task. */
  role: 'actor' | 'critic';
  status: RunnerStatus;
  event: TaskEvent;
  /** What the reason must say about what happened. */
  reason: RegExp;
  /** More output lines that must be kept, besides the marker. */
  kept?: string[];
  /** Past this the CLI is killed and the case fails (generous: the machine may be busy). */
  deadlineSeconds: number;
}

const STUCK = 2;
const CALM = 30;

export const AGENT_FAULT_CASES: FaultCase[] = [
  {
    kind: 'actor crashes (exit 1 after output)',
    actor: 'exit1', critic: 'ok', stuckSeconds: CALM,
    role: 'actor', status: 'agent_error', event: 'AGENT_FAILED', reason: /exited with code 1/, kept: ['step 40'], deadlineSeconds: 105,
  },
  {
    kind: 'actor killed by a signal mid-line',
    actor: 'sigkill', critic: 'ok', stuckSeconds: CALM,
    role: 'actor', status: 'crashed', event: 'AGENT_FAILED', reason: /killed by SIGKILL/, kept: ['(cut off mid-li'], deadlineSeconds: 105,
  },
  {
    kind: 'actor hangs with no output',
    actor: 'hang', critic: 'ok', stuckSeconds: STUCK,
    role: 'actor', status: 'idle_timeout', event: 'STUCK_ABORTED', reason: /no activity for 2s/, deadlineSeconds: 105,
  },
  {
    kind: 'actor ignores SIGINT/SIGTERM (hung)',
    actor: 'ignoreSignals', critic: 'ok', stuckSeconds: STUCK,
    role: 'actor', status: 'idle_timeout', event: 'STUCK_ABORTED', reason: /no activity for 2s/,
    kept: ['ignoring SIGINT', 'ignoring SIGTERM'], deadlineSeconds: 120,
  },
  {
    kind: 'actor streams output forever',
    actor: 'endless', critic: 'ok', stuckSeconds: STUCK,
    role: 'actor', status: 'agent_error', event: 'AGENT_FAILED', reason: /did not finish within 24 s, the limit for one call/,
    kept: ['still going'], deadlineSeconds: 135,
  },
  {
    kind: 'actor prints binary/ANSI junk, exit 1',
    actor: 'junk', critic: 'ok', stuckSeconds: CALM,
    role: 'actor', status: 'agent_error', event: 'AGENT_FAILED', reason: /exited with code 1/, kept: ['red '], deadlineSeconds: 105,
  },
  {
    kind: 'actor exits 0 with an error payload',
    actor: 'errorPayload', critic: 'ok', stuckSeconds: CALM,
    role: 'actor', status: 'agent_error', event: 'AGENT_FAILED', reason: /exited 0 but answered with an error: API Error: 529 overloaded/,
    deadlineSeconds: 105,
  },
  {
    kind: 'critic prints garbage (no JSON verdict)',
    actor: 'ok', critic: 'garbage', stuckSeconds: CALM,
    role: 'critic', status: 'ok', event: 'MALFORMED_GIVEUP', reason: /critic gave no valid verdict after one repair attempt/,
    deadlineSeconds: 105,
  },
  {
    kind: 'critic exits 0 with an error payload',
    actor: 'ok', critic: 'errorPayload', stuckSeconds: CALM,
    role: 'critic', status: 'agent_error', event: 'AGENT_FAILED', reason: /critic failed \(an agent error\).*answered with an error/,
    deadlineSeconds: 105,
  },
  {
    kind: 'critic crashes (exit 1 after output)',
    actor: 'ok', critic: 'exit1', stuckSeconds: CALM,
    role: 'critic', status: 'agent_error', event: 'AGENT_FAILED', reason: /critic failed \(an agent error\).*exited with code 1/,
    deadlineSeconds: 105,
  },
];

export interface AgentFaultResult {
  kind: string;
  handled: boolean;
  outcome: string;
  problems: string[];
  seconds: number;
  dir: string;
}

export async function runAgentFaults(options: { log?: (line: string) => void; concurrency?: number; keep?: boolean } = {}): Promise<FaultRow[]> {
  const results = await runAgentFaultCases(options);
  return results.map((r) => ({
    group: 'agent',
    kind: r.kind,
    injected: 1,
    handled: r.handled ? 1 : 0,
    outcome: r.outcome,
    problems: r.problems,
  }));
}

export async function runAgentFaultCases(
  options: { log?: (line: string) => void; concurrency?: number; keep?: boolean; cases?: FaultCase[] } = {},
): Promise<AgentFaultResult[]> {
  const log = options.log ?? (() => {});
  const tools = mkdtempSync(join(tmpdir(), 'taskloom-agent-faults-'));
  const agentPath = join(tools, 'agent.mjs');
  const planPath = join(tools, 'plan.json');
  writeFileSync(agentPath, AGENT);
  writeFileSync(planPath, JSON.stringify(PLAN, null, 2));
  const cases = options.cases ?? AGENT_FAULT_CASES;
  const results: AgentFaultResult[] = new Array(cases.length);
  // The longest cases first, so they do not end up alone at the end.
  const order = cases.map((_, i) => i).sort((a, b) => cases[b]!.deadlineSeconds - cases[a]!.deadlineSeconds);
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < order.length; n = next++) {
      const i = order[n]!;
      const c = cases[i]!;
      results[i] = await runCase(c, agentPath, planPath, options.keep ?? false);
      const r = results[i]!;
      log(`${r.handled ? 'ok  ' : 'FAIL'} ${c.kind} (${r.seconds.toFixed(1)} s): ${r.outcome}${r.problems.length ? ` — ${r.problems.join('; ')}` : ''}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 3) }, worker));
  } finally {
    rmSync(tools, { recursive: true, force: true });
  }
  return results;
}

async function runCase(c: FaultCase, agentPath: string, planPath: string, keep: boolean): Promise<AgentFaultResult> {
  const repo = makeTempRepo({ files: { 'README.md': '# fault target\n' } });
  const marker = `taskloom-fault-${randomBytes(6).toString('hex')}`;
  const problems: string[] = [];
  const command = JSON.stringify([process.execPath, agentPath, c.actor, c.critic, marker, '{role}', '{prompt_file}']);
  const started = performance.now();
  const run = await cli(
    ['run', '--cwd', repo.dir, '--plan', planPath, '--yes', '--agent', 'command', '--command', command, '--stuck-seconds', String(c.stuckSeconds)],
    c.deadlineSeconds,
  );
  const seconds = (performance.now() - started) / 1000;

  // 3. Nothing the agent started survives the CLI.
  const left = await survivors(marker);
  if (left.length > 0) {
    problems.push(`${left.length} process(es) left running: ${left.join(' | ')}`);
    for (const line of left) killQuietly(Number(line.split(':')[0]));
  }

  // 4. The CLI's own exit and message.
  if (run.killed) problems.push(`the CLI did not exit within ${c.deadlineSeconds} s and was killed`);
  if (run.code !== 1) problems.push(`CLI exit code ${run.code}, expected 1 (needs a human); stderr: ${run.stderr.slice(-300)}`);
  if (!/Needs you:/.test(run.stdout) || !run.stdout.includes(`${TASK}:`)) problems.push('stdout does not list the task under "Needs you:"');
  if (!run.stdout.includes(marker)) problems.push("stdout does not show the agent's last output (marker missing)");
  // The CLI runs with NO_COLOR, so every control character on stdout came from the agent.
  const controls = run.stdout.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g);
  if (controls) problems.push(`stdout carries ${controls.length} control character(s) from the agent (e.g. ${JSON.stringify(controls[0])})`);

  // 1 and 2, from the event log.
  const events = readEvents(repo.dir);
  problems.push(...logProblems(repo.dir));
  const transitions = events.filter((e): e is Extract<RunEvent, { type: 'task_transition' }> => e.type === 'task_transition' && e.taskId === TASK);
  const end = transitions.at(-1);
  if (!end) problems.push('no transition of the task was recorded');
  else {
    if (end.to !== 'NEEDS_HUMAN' || end.event !== c.event) problems.push(`task ended ${end.from} → ${end.to} by ${end.event}, expected ${c.event} → NEEDS_HUMAN`);
    if (!c.reason.test(end.reason)) problems.push(`reason does not match ${c.reason}: ${clip(end.reason)}`);
    for (const line of [marker, ...(c.kept ?? [])]) {
      if (!end.reason.includes(line)) problems.push(`reason lost the agent's output "${line}": ${clip(end.reason)}`);
    }
  }
  const calls = events.filter((e): e is Extract<RunEvent, { type: 'runner_call' }> => e.type === 'runner_call' && e.role === c.role);
  const call = calls.at(-1);
  if (!call) problems.push(`no ${c.role} call was recorded`);
  else {
    if (call.status !== c.status) problems.push(`${c.role} call status ${call.status}, expected ${c.status}`);
    if (c.status !== 'ok' && !call.detail?.includes(marker)) problems.push(`${c.role} call detail lost the marker: ${clip(call.detail ?? '(none)')}`);
  }

  // The same end, as `trace --json` reports it.
  const trace = await cli(['trace', '--json', '--cwd', repo.dir], 60);
  let traced: TraceReport | undefined;
  try {
    traced = JSON.parse(trace.stdout) as TraceReport;
  } catch {
    problems.push(`trace --json is not JSON (exit ${trace.code}): ${clip(trace.stderr || trace.stdout)}`);
  }
  const task = traced?.tasks.find((t) => t.id === TASK);
  if (traced && (traced.status !== 'needs_human' || task?.state !== 'NEEDS_HUMAN')) {
    problems.push(`trace: run ${traced.status}, task ${task?.state}; expected needs_human / NEEDS_HUMAN`);
  }
  if (task && !task.lastReason.includes(marker)) problems.push(`trace: the task's last reason lost the marker: ${clip(task.lastReason)}`);

  if (problems.length === 0 && !keep) repo.cleanup();
  return {
    kind: c.kind,
    handled: problems.length === 0,
    outcome: end ? `${end.to} via ${end.event} (${call?.status ?? 'no call'}), exit ${run.code}, ${seconds.toFixed(1)} s` : `no end (exit ${run.code})`,
    problems: problems.length ? [...problems, `repo kept: ${repo.dir}`] : [],
    seconds,
    dir: repo.dir,
  };
}

/** The CLI as a child process, without blocking the event loop (cases run side by side); killed past `limitSeconds`. */
async function cli(args: string[], limitSeconds: number): Promise<CliResult & { killed: boolean }> {
  const { child, done } = startCli(args);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    killQuietly(-child.pid!);
  }, limitSeconds * 1000);
  const result = await done;
  clearTimeout(timer);
  return { ...result, killed };
}

/** Processes still mentioning the marker; a process being reaped gets a second to go. */
async function survivors(marker: string): Promise<string[]> {
  let left = processesMentioning(marker);
  for (let i = 0; i < 10 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesMentioning(marker);
  }
  return left;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const clip = (text: string): string => {
  const flat = JSON.stringify(text);
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
};

async function main() {
  const args = process.argv.slice(2);
  const i = args.indexOf('--parallel-cases');
  const started = performance.now();
  const rows = await runAgentFaults({
    log: (l) => console.log(l),
    concurrency: i >= 0 ? Number(args[i + 1]) : 3,
    keep: args.includes('--keep'),
  });
  console.log(`\nagent faults: ${rows.length} kinds, ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(formatFaultTable(rows));
  const failures = rows.filter((r) => r.handled < r.injected);
  if (failures.length > 0) {
    console.log(`\n${failures.length} failure(s):`);
    for (const f of failures) console.log(`- ${f.kind}: ${f.problems.join('; ')}`);
  }
  process.exit(failures.length > 0 ? 1 : 0);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
