// A separate watcher process, so a busy test process cannot delay the kill: follows a run's
// events.jsonl and SIGKILLs the process group `pgid` as soon as the trigger holds.
// argv: <repoDir> <pgid> <spec JSON>; spec: { lines?: N } (N complete lines durable) or
// { type, where?, occurrence? } (the occurrence-th event of that type matching `where`),
// plus optional delayMs (wait after the trigger, to land inside the following operation).
// Prints {"killed":true,"lines":L} or {"killed":false} when the group is gone first.
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';

const [dir, pgidArg, specArg] = process.argv.slice(2);
const pgid = Number(pgidArg);
const spec = JSON.parse(specArg);
const runs = join(dir, '.taskloom', 'runs');
/** How often it looks for the log before it exists. */
const POLL_MS = 2;
/** Once it watches the log: how often it looks anyway, and asks whether the group is still there. */
const SAFETY_POLL_MS = 50;
const GIVE_UP_MS = 120_000;

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

// The log is read as it grows, each byte once.
let file;
let offset = 0;
let partial = '';
let lines = 0;
let seen = 0;
/** Takes the complete lines appended since the last call; the number of lines durable once the trigger holds. */
function triggeredByNewLines() {
  const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (size < offset) {
    // Cut back (a torn last line removed on open): count again from the top.
    offset = 0;
    partial = '';
    lines = 0;
    seen = 0;
  }
  if (size === offset) return undefined;
  const chunk = Buffer.alloc(size - offset);
  const fd = openSync(file, 'r');
  try {
    offset += readSync(fd, chunk, 0, chunk.length, offset);
  } finally {
    closeSync(fd);
  }
  const text = partial + chunk.toString('utf8');
  const end = text.lastIndexOf('\n') + 1;
  partial = text.slice(end);
  for (const l of text.slice(0, end).split('\n')) {
    if (!l) continue;
    lines++;
    if (spec.lines !== undefined) {
      if (lines >= spec.lines) return lines;
      continue;
    }
    let e;
    try { e = JSON.parse(l); } catch { continue; }
    if (e.type === spec.type && matches(e, spec.where ?? {}) && ++seen >= (spec.occurrence ?? 1)) return lines;
  }
  return undefined;
}

let firing = false;
async function killIfTriggered() {
  if (firing || !file) return;
  const durable = triggeredByNewLines();
  if (durable === undefined) return;
  firing = true;
  if (spec.delayMs) await new Promise((r) => setTimeout(r, spec.delayMs));
  let killed = true;
  try { process.kill(-pgid, 'SIGKILL'); } catch { killed = false; }
  process.stdout.write(JSON.stringify({ killed, lines: durable }));
  process.exit(0);
}

// Until the log exists, look every few ms; then inotify says when it grows, and a slower poll
// catches anything a notification missed and notices the group has gone.
const started = Date.now();
while (!(file = logFile())) {
  if (!alive() || Date.now() - started > GIVE_UP_MS) giveUp();
  await new Promise((r) => setTimeout(r, POLL_MS));
}
// A log replaced under the watch ends the notifications, not the watcher: the slower poll goes on.
watch(file, () => void killIfTriggered()).on('error', () => undefined);
setInterval(() => {
  void killIfTriggered();
  if (!firing && (!alive() || Date.now() - started > GIVE_UP_MS)) giveUp();
}, SAFETY_POLL_MS);
void killIfTriggered();

function giveUp() {
  process.stdout.write(JSON.stringify({ killed: false }));
  process.exit(0);
}
