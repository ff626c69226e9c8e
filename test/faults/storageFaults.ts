/**
 * Storage fault campaign: damage what Taskloom keeps on disk between (or during) the steps of a
 * real run, and check that the CLI says what happened, keeps every event that was durable,
 * and that `resume` ends the run like an uninterrupted reference run.
 *
 * - One "chain" run is SIGKILLed at a series of points; after each kill one fault is injected
 *   (torn last line, garbage last line, state.json corrupt / wrong shape / deleted / lying,
 *   run.json and DECISIONS.md deleted), then `runs`, `trace` and `resume --yes` are run (each
 *   resume killed again at the next point), the last resume to the end.
 * - A second run has its `.taskloom/runs` on a small tmpfs that is filled up mid-run, so an
 *   append fails with ENOSPC; space is then freed and the run resumed.
 *
 *   node --import tsx test/faults/storageFaults.ts [--keep]
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, openSync, writeSync, closeSync, fsyncSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, runCli, startCli, type CliResult } from '../helpers/cli';
import {
  campaignWorkspace,
  differencesFromReference,
  eventsFile,
  logProblems,
  noLeftoverProcesses,
  readEvents,
  readReference,
  startKiller,
  withDeadline,
  type EndState,
} from './faultHelpers';
import { faultProblems, formatFaultTable, type FaultRow } from './faultTable';

const TIMEOUT_MS = 120_000;
const DELAY_MS = 20;

interface Started {
  pid: number;
  result: Promise<CliResult>;
}

/** `fileSizeKiB`: run under `ulimit -f`, so writes past that size fail with EFBIG (Node ignores SIGXFSZ). */
function start(args: string[], fileSizeKiB?: number): Started {
  return withDeadline(fileSizeKiB === undefined ? startCli(args) : startLimited(args, fileSizeKiB), TIMEOUT_MS);
}

function startLimited(args: string[], kib: number): ReturnType<typeof startCli> {
  const child = spawn('bash', ['-c', `ulimit -f ${kib} && exec "$0" "$@"`, process.execPath, CLI, ...args], {
    env: { ...process.env, NO_COLOR: '1' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return { child, done: new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

/** Runs `args`, SIGKILLing its process group once the log has `lines` complete lines (see killAt.mjs). */
async function runUntilLines(dir: string, args: string[], lines: number): Promise<{ res: CliResult; killed: boolean }> {
  const { pid, result } = start(args);
  const [res, kill] = await Promise.all([result, startKiller(dir, pid, { lines })]);
  return { res, killed: kill.killed };
}

const logText = (dir: string): string => readFileSync(eventsFile(dir)!, 'utf8');
/** The complete lines of the log, as text. */
const completeLines = (text: string): string[] => text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean);
const lastSeqOf = (dir: string): number => readEvents(dir).at(-1)?.seq ?? 0;
const firstLine = (text: string): string => text.trim().split('\n').find((l) => l.trim()) ?? '';
const hasStack = (text: string): boolean => /internal error|\n\s+at .+:\d+:\d+\)?/.test(text);

/** `lines` (events durable before a fault) must still open the log, unchanged. */
function keptLines(dir: string, lines: string[], when: string): string[] {
  const now = completeLines(logText(dir));
  const lost = lines.findIndex((l, i) => now[i] !== l);
  return lost === -1 ? [] : [`${when}: durable event line ${lost + 1} was lost or changed`];
}

function runDir(dir: string): string {
  const runs = join(dir, '.taskloom', 'runs');
  return join(runs, readdirSync(runs).find((n) => existsSync(join(runs, n, 'events.jsonl')))!);
}

const statePath = (dir: string) => join(dir, '.taskloom', 'state.json');
const stateBackups = (dir: string) => readdirSync(join(dir, '.taskloom')).filter((n) => n.startsWith('state.json.corrupt-'));

// ---------------------------------------------------------------------------------------------
// The chain: one run, killed and damaged again and again.

interface ChainFault {
  kind: string;
  /** Damages the workspace; returns the log lines that must survive (default: all complete lines). */
  inject(dir: string): string[] | void;
  /** What the read-only `trace` must warn about (stderr), if anything. */
  traceWarns?: RegExp;
  /** What the next `resume` must warn about (stderr). */
  resumeWarns?: RegExp;
  /** Checked after the resume that follows the fault. */
  after?(dir: string): string[];
  outcome: string;
}

const CHAIN: ChainFault[] = [
  {
    kind: 'truncated last line of events.jsonl (torn write)',
    inject: (dir) => {
      const text = logText(dir);
      const lines = completeLines(text);
      const last = lines.at(-1)!;
      // Cut the last event in the middle, newline included, like a write interrupted by power loss.
      writeFileSync(eventsFile(dir)!, text.slice(0, text.length - 1 - Math.floor(last.length / 2)));
      return lines.slice(0, -1);
    },
    traceWarns: /events\.jsonl: ignored a torn last line \(\d+ bytes\)/,
    resumeWarns: /ignored a torn last line .* saved to events\.jsonl\.torn and the log now ends at the last complete event/,
    after: (dir) => (existsSync(join(runDir(dir), 'events.jsonl.torn')) ? [] : ['events.jsonl.torn was not kept']),
    outcome: 'warned (torn line ignored, saved to .torn); resumed',
  },
  {
    kind: 'garbage appended as the last line of events.jsonl',
    inject: (dir) => {
      const lines = completeLines(logText(dir));
      writeFileSync(eventsFile(dir)!, `${lines.join('\n')}\n\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0garbage}}\n`);
      return lines;
    },
    traceWarns: /events\.jsonl: ignored a torn last line/,
    resumeWarns: /ignored a torn last line .* saved to events\.jsonl\.torn/,
    outcome: 'warned (bad last line cut off, saved to .torn); resumed',
  },
  {
    kind: 'state.json corrupt (invalid JSON)',
    inject: (dir) => {
      const text = readFileSync(statePath(dir), 'utf8');
      writeFileSync(statePath(dir), text.slice(0, Math.floor(text.length / 2)));
    },
    traceWarns: /state\.json is not valid JSON .* rebuilt from the event logs in memory/,
    resumeWarns: /state\.json was not valid JSON .* moved to state\.json\.corrupt-\S+ and the index was rebuilt from the event logs/,
    after: (dir) => (stateBackups(dir).length === 1 ? [] : [`expected 1 state.json.corrupt-* backup, found ${stateBackups(dir).length}`]),
    outcome: 'warned; moved to state.json.corrupt-<ts>, rebuilt from the log; resumed',
  },
  {
    kind: 'state.json valid JSON of the wrong shape',
    inject: (dir) => writeFileSync(statePath(dir), JSON.stringify({ schemaVersion: 1, runs: [{ hello: 'world' }] })),
    traceWarns: /state\.json is not a Taskloom state file/,
    resumeWarns: /state\.json was not a Taskloom state file .* moved to state\.json\.corrupt-\S+ and the index was rebuilt/,
    after: (dir) => (stateBackups(dir).length === 2 ? [] : [`expected 2 state.json.corrupt-* backups, found ${stateBackups(dir).length}`]),
    outcome: 'warned; moved aside, rebuilt from the log; resumed',
  },
  {
    kind: 'state.json deleted',
    inject: (dir) => unlinkSync(statePath(dir)),
    traceWarns: /state\.json was missing/,
    resumeWarns: /state\.json was missing; the index was rebuilt from the event logs/,
    after: (dir) => (existsSync(statePath(dir)) ? [] : ['state.json was not written again']),
    outcome: 'warned; rebuilt from the log; resumed',
  },
  {
    kind: 'state.json snapshot claims a higher seq than the log',
    inject: (dir) => {
      const data = JSON.parse(readFileSync(statePath(dir), 'utf8'));
      const runId = Object.keys(data.runs)[0]!;
      const run = data.runs[runId];
      const lie = lastSeqOf(dir) + 40;
      run.lastSeq = lie;
      if (!run.snapshot) throw new Error('state.json holds no snapshot to tamper with');
      run.snapshot.seq = lie;
      run.snapshot.state.lastSeq = lie;
      delete run.snapshot.logBytes;
      writeFileSync(statePath(dir), JSON.stringify(data));
    },
    traceWarns: /discarded its snapshot in state\.json \(it covers seq \d+ but the log ends at seq \d+\) and rebuilt the run from its whole event log/,
    resumeWarns: /discarded its snapshot in state\.json \(it covers seq \d+ but the log ends at seq \d+\)/,
    outcome: 'warned; snapshot discarded, run rebuilt from the log; resumed',
  },
  {
    kind: 'run.json and DECISIONS.md deleted',
    inject: (dir) => {
      rmSync(join(runDir(dir), 'run.json'), { force: true });
      rmSync(join(runDir(dir), 'DECISIONS.md'), { force: true });
    },
    after: (dir) => {
      const run = join(runDir(dir), 'run.json');
      const decisions = join(runDir(dir), 'DECISIONS.md');
      if (!existsSync(run) || !existsSync(decisions)) return ['run.json / DECISIONS.md not rebuilt'];
      const seq = (JSON.parse(readFileSync(run, 'utf8')) as { lastSeq: number }).lastSeq;
      return seq === lastSeqOf(dir) ? [] : [`run.json is at seq ${seq}, the log at ${lastSeqOf(dir)}`];
    },
    outcome: 'rebuilt from the log by the next resume',
  },
];

function row(kind: string, outcome: string, problems: string[]): FaultRow {
  return { group: 'storage', kind, injected: 1, handled: problems.length === 0 ? 1 : 0, outcome, problems };
}

/** Checks common to every fault: `runs` and `trace` work and see every durable event. */
function readOnlyChecks(dir: string, fault: ChainFault, expectSeq: number): string[] {
  const problems: string[] = [];
  const runs = runCli(['runs', '--json', '--cwd', dir]);
  if (runs.code !== 0) problems.push(`runs exit ${runs.code}: ${firstLine(runs.stderr)}`);
  else {
    const listed = (JSON.parse(runs.stdout) as Array<{ lastSeq: number }>)[0];
    if (listed?.lastSeq !== expectSeq) problems.push(`runs lists seq ${listed?.lastSeq}, the log ends at ${expectSeq}`);
  }
  const trace = runCli(['trace', '--cwd', dir]);
  if (trace.code !== 0) problems.push(`trace exit ${trace.code}: ${firstLine(trace.stderr)}`);
  if (hasStack(trace.stderr) || hasStack(runs.stderr)) problems.push('a stack trace was printed');
  if (fault.traceWarns && !fault.traceWarns.test(trace.stderr)) problems.push(`trace did not warn ${fault.traceWarns}: ${JSON.stringify(trace.stderr.slice(0, 300))}`);
  return problems;
}

async function runChain(refP: Promise<Reference>, events: number, log: (l: string) => void, keep: boolean): Promise<FaultRow[]> {
  const workspace = campaignWorkspace(DELAY_MS);
  const r = workspace.repo;
  const rows: FaultRow[] = [];
  // Kill points spread over the run: each fault gets its own stretch of the run.
  const step = Math.max(4, Math.floor((events - 8) / (CHAIN.length + 1)));
  let ok = true;
  try {
    let args = workspace.run;
    let target = step;
    let pendingAfter: { fault: ChainFault; problems: string[]; kept: string[] } | undefined;
    const finishFault = (res: CliResult, stage: string) => {
      if (!pendingAfter) return;
      const { fault, problems, kept } = pendingAfter;
      if (fault.resumeWarns && !fault.resumeWarns.test(res.stderr)) problems.push(`${stage} did not warn ${fault.resumeWarns}: ${JSON.stringify(res.stderr.slice(0, 300))}`);
      if (hasStack(res.stderr)) problems.push(`${stage} printed a stack trace: ${res.stderr.slice(0, 300)}`);
      problems.push(...keptLines(r.dir, kept, `after ${stage}`));
      problems.push(...(fault.after?.(r.dir) ?? []));
      rows.push(row(fault.kind, fault.outcome, problems));
      log(`  ${problems.length ? 'FAIL' : 'ok  '} ${fault.kind}${problems.length ? `\n      ${problems.join('\n      ')}` : ''}`);
      if (problems.length) ok = false;
      pendingAfter = undefined;
    };
    for (const fault of CHAIN) {
      const { res, killed } = await runUntilLines(r.dir, args, target);
      finishFault(res, 'the resume');
      if (!killed) {
        rows.push(row(fault.kind, fault.outcome, [`the run ended (exit ${res.code}) before kill point ${target}: ${firstLine(res.stderr)}`]));
        ok = false;
        args = ['resume', '--cwd', r.dir, '--yes'];
        continue;
      }
      const before = completeLines(logText(r.dir));
      let kept = before;
      const problems: string[] = [];
      try {
        kept = fault.inject(r.dir) ?? before;
      } catch (err) {
        problems.push(`injection failed: ${(err as Error).message}`);
      }
      const keptSeq = kept.length ? (JSON.parse(kept.at(-1)!) as { seq: number }).seq : 0;
      problems.push(...readOnlyChecks(r.dir, fault, keptSeq));
      pendingAfter = { fault, problems, kept };
      args = ['resume', '--cwd', r.dir, '--yes'];
      target = kept.length + step;
    }
    const last = await start(args).result;
    finishFault(last, 'the final resume');
    const ref = await refP;
    const end: string[] = [];
    if (last.code !== ref.code) end.push(`final resume exit ${last.code}, reference ${ref.code}: ${firstLine(last.stderr)}`);
    end.push(...(await differencesFromReference(workspace, ref.end)));
    if (end.length) {
      ok = false;
      // The end of the chain belongs to every fault injected into it.
      for (const row of rows) {
        row.problems.push(...end.map((p) => `chain end: ${p}`));
        row.handled = 0;
      }
      log(`  FAIL chain end: ${end.join('; ')}`);
    } else log('  ok   chain: the resumed run ended like the reference');
  } finally {
    if (ok && !keep) r.cleanup();
    else log(`  chain repo kept: ${r.dir}`);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Disk full while appending.

const TMPFS_SIZE = '512k';
/** The fallback's file size limit: the log is ~37 KiB at the end of the run. */
const FSIZE_KIB = 20;

function fillUp(dir: string): string {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  try {
    for (const size of [64 * 1024, 4096, 256, 1]) {
      const chunk = Buffer.alloc(size, 0x78);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
    try {
      fsyncSync(fd);
    } catch {
      // tmpfs
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

async function runDiskFull(refP: Promise<Reference>, events: number, log: (l: string) => void, keep: boolean): Promise<FaultRow> {
  const kind = 'disk full while appending to events.jsonl';
  const workspace = campaignWorkspace(DELAY_MS);
  const r = workspace.repo;
  const mountPoint = join(r.dir, '.taskloom', 'runs');
  mkdirSync(mountPoint, { recursive: true });
  const problems: string[] = [];
  let outcome = '';
  let mounted = false;
  try {
    // TASKLOOM_FAULT_NO_TMPFS=1 tries the fallback as a non-root user gets it.
    const mount = process.env.TASKLOOM_FAULT_NO_TMPFS
      ? { status: 1, stderr: 'TASKLOOM_FAULT_NO_TMPFS is set' }
      : spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', mountPoint], { encoding: 'utf8' });
    mounted = mount.status === 0;
    let filler: string | undefined;
    let durableAtFill: string[] = [];
    let res: CliResult;
    let how: string;
    if (mounted) {
      const fillAt = Math.floor(events / 2);
      how = `tmpfs ${TMPFS_SIZE} filled at event ${fillAt}`;
      const started = start(workspace.run);
      // Fill the tmpfs once half the run is durable: the next append that needs a new page fails.
      const watcher = (async () => {
        for (;;) {
          const file = eventsFile(r.dir);
          if (file) {
            const lines = completeLines(readFileSync(file, 'utf8'));
            if (lines.length >= fillAt) {
              filler = fillUp(mountPoint);
              durableAtFill = lines;
              return;
            }
          }
          try {
            process.kill(-started.pid, 0);
          } catch {
            return;
          }
          await sleep(2);
        }
      })();
      [res] = await Promise.all([started.result, watcher]);
      if (!filler) return row(kind, 'not reached', [`the run ended (exit ${res.code}) before the disk was filled`]);
    } else {
      // No tmpfs (not root): every file the CLI writes is limited instead; the log reaches it mid-run.
      how = `no tmpfs (${(mount.stderr || '').trim().slice(0, 40)}), injected: ulimit -f ${FSIZE_KIB} KiB (EFBIG)`;
      res = await start(workspace.run, FSIZE_KIB).result;
      durableAtFill = completeLines(logText(r.dir)).slice(0, 10);
    }
    const stderr = res.stderr;
    log(`  disk full: run exit ${res.code}; stderr: ${stderr.trim().split('\n').filter((l) => !/could not write run\.json/.test(l)).slice(-3).join(' | ')}`);
    if (res.code === 0 || res.code === null) problems.push(`the run exited ${res.code} on a full disk`);
    if (!/no space left on device|ENOSPC|EFBIG/i.test(stderr)) problems.push(`no "disk full" message: ${JSON.stringify(stderr.slice(-400))}`);
    if (!/events\.jsonl/.test(stderr)) problems.push('the message does not name events.jsonl');
    if (hasStack(stderr)) problems.push(`a stack trace was printed: ${stderr.slice(-400)}`);
    if (!/taskloom resume/.test(stderr)) problems.push('the message does not say how to continue (taskloom resume)');
    problems.push(...(await noLeftoverProcesses(workspace.scenario)));
    const text = logText(r.dir);
    if (!text.endsWith('\n')) problems.push('the log ends with a half line');
    problems.push(...keptLines(r.dir, durableAtFill, 'after the disk filled up'));
    problems.push(...logProblems(r.dir).map((p) => `log after the failure: ${p}`));
    const durable = completeLines(text);
    const trace = runCli(['trace', '--cwd', r.dir]);
    if (trace.code !== 0) problems.push(`trace on the full disk exit ${trace.code}: ${firstLine(trace.stderr)}`);

    if (filler) rmSync(filler);
    const resumed = await start(['resume', '--cwd', r.dir, '--yes']).result;
    const ref = await refP;
    if (resumed.code !== ref.code) problems.push(`resume exit ${resumed.code}, reference ${ref.code}: ${resumed.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    problems.push(...keptLines(r.dir, durable, 'after the resume'));
    problems.push(...(await differencesFromReference(workspace, ref.end)));
    outcome = `${how}: exit ${res.code} "${firstLine(stderr.split('\n').filter((l) => /Could not append/.test(l)).join('\n')).replace(/^taskloom:\s*/, '').slice(0, 60)}…", ${durable.length} events kept; freed, resumed`;
  } catch (err) {
    problems.push(`harness error: ${(err as Error).message}`);
  } finally {
    if (mounted) {
      const um = spawnSync('umount', [mountPoint], { encoding: 'utf8' });
      if (um.status !== 0) spawnSync('umount', ['-l', mountPoint]);
    }
    if (problems.length === 0 && !keep) r.cleanup();
    else log(`  disk-full repo kept: ${r.dir}`);
  }
  log(`  ${problems.length ? 'FAIL' : 'ok  '} ${kind}${problems.length ? `\n      ${problems.join('\n      ')}` : ''}`);
  return row(kind, outcome || 'see problems', problems);
}

// ---------------------------------------------------------------------------------------------

interface Reference {
  end: EndState;
  code: number | null;
}

/** Kill and fill points are placed by the reference's length, known before it has run. */
const EXPECTED_EVENTS = 106;

export async function runStorageFaults(options: { log?: (line: string) => void; keep?: boolean } = {}): Promise<FaultRow[]> {
  const log = options.log ?? (() => {});
  const keep = options.keep ?? false;
  const t0 = Date.now();
  const { repo: refRepo, run } = campaignWorkspace(DELAY_MS);
  // The reference runs alongside the faulty runs, which compare with it only at their end.
  const ref: Promise<Reference> = start(run).result.then((res) => {
    try {
      const { end, events } = readReference(refRepo);
      log(`reference run: exit ${res.code}, ${events.length} events, status ${end.status}, ${Date.now() - t0} ms`);
      return { end, code: res.code };
    } finally {
      refRepo.cleanup();
    }
  });
  ref.catch(() => {});
  const [chain, disk] = await Promise.all([
    runChain(ref, EXPECTED_EVENTS, log, keep),
    // Staggered, so the two runs do not hit the same phases at once on a small machine.
    sleep(2_000).then(() => runDiskFull(ref, EXPECTED_EVENTS, log, keep)),
  ]);
  await ref;
  log(`storage faults: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return [...chain, disk];
}

async function main() {
  const keep = process.argv.includes('--keep');
  const t0 = Date.now();
  const rows = await runStorageFaults({ log: (l) => console.log(l), keep });
  console.log(`\nstorage faults: ${rows.length} kinds, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  console.log(formatFaultTable(rows));
  const problems = faultProblems(rows);
  if (problems.length > 0) {
    console.log(`\n${problems.length} problem(s):`);
    for (const p of problems) console.log(`- ${p}`);
  }
  process.exit(problems.length > 0 ? 1 : 0);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
