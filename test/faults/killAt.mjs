// A separate watcher process, so a busy test process cannot delay the kill: polls a run's
// events.jsonl and SIGKILLs the process group `pgid` as soon as the trigger holds.
// argv: <repoDir> <pgid> <spec JSON>; spec: { lines?: N } (N complete lines durable) or
// { type, where?, occurrence? } (the occurrence-th event of that type matching `where`),
// plus optional delayMs (wait after the trigger, to land inside the following operation).
// Prints {"killed":true,"lines":L} or {"killed":false} when the group is gone first.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, pgidArg, specArg] = process.argv.slice(2);
const pgid = Number(pgidArg);
const spec = JSON.parse(specArg);
const runs = join(dir, '.taskloom', 'runs');

function logFile() {
  if (!existsSync(runs)) return undefined;
  const [runId] = readdirSync(runs);
  const f = runId && join(runs, runId, 'events.jsonl');
  return f && existsSync(f) ? f : undefined;
}
function matches(value, where) {
  if (where === null || typeof where !== 'object') return value === where;
  return value !== null && typeof value === 'object' && Object.entries(where).every(([k, v]) => matches(value[k], v));
}
function alive() {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
function triggered(text) {
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const lines = complete.split('\n').filter(Boolean);
  if (spec.lines !== undefined) return lines.length >= spec.lines ? lines.length : undefined;
  let seen = 0;
  for (const l of lines) {
    let e;
    try { e = JSON.parse(l); } catch { continue; }
    if (e.type === spec.type && matches(e, spec.where ?? {}) && ++seen >= (spec.occurrence ?? 1)) return lines.length;
  }
  return undefined;
}

let lastSize = -1;
const started = Date.now();
for (;;) {
  const f = logFile();
  if (f) {
    const text = readFileSync(f, 'utf8');
    if (text.length !== lastSize) {
      lastSize = text.length;
      const lines = triggered(text);
      if (lines !== undefined) {
        if (spec.delayMs) await new Promise((r) => setTimeout(r, spec.delayMs));
        let killed = true;
        try { process.kill(-pgid, 'SIGKILL'); } catch { killed = false; }
        process.stdout.write(JSON.stringify({ killed, lines }));
        process.exit(0);
      }
    }
  }
  if (!alive() || Date.now() - started > 120_000) {
    process.stdout.write(JSON.stringify({ killed: false }));
    process.exit(0);
  }
  await new Promise((r) => setTimeout(r, 2));
}
