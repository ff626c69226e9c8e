// Ends a process together with everything it started. The VS Code server forks a file watcher
// and an extension host, the extension host starts the engine, and the engine starts agents in
// their own process groups; a plain kill of the server would orphan all of them. So the tree
// is read from /proc (parent ids) before anything is signalled, then each pid is signalled.
import { readFileSync, readdirSync } from 'node:fs';

function parentIds() {
  const parents = new Map();
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return parents; // no /proc (not Linux): callers fall back to process groups
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so parse after the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') parents.set(Number(name), Number(ppid));
    } catch {
      // the process ended while we were reading
    }
  }
  return parents;
}

/** Pids of every live descendant of `rootPid` (children first level first), without `rootPid`. */
export function descendantsOf(rootPid) {
  const children = new Map();
  for (const [pid, ppid] of parentIds()) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const found = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

function signal(pids, sig) {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/**
 * Synchronously sends SIGKILL to `rootPid`, its process group (when it leads one) and all its
 * descendants. For `process.on('exit')`, where nothing asynchronous runs any more.
 */
export function killTreeNow(rootPid) {
  const pids = [rootPid, ...descendantsOf(rootPid)];
  signal([-rootPid], 'SIGKILL');
  signal(pids, 'SIGKILL');
}

/**
 * SIGTERM to the tree of `rootPid` (and its process group), then SIGKILL to whatever is still
 * alive after `graceMs`. The tree is read once, up front: once a parent dies its children are
 * re-parented and could no longer be found.
 */
export async function killTree(rootPid, graceMs = 3000) {
  const pids = [rootPid, ...descendantsOf(rootPid)];
  signal([-rootPid], 'SIGTERM');
  signal(pids, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const survivors = pids.filter(isAlive);
  signal([-rootPid], 'SIGKILL');
  signal(survivors, 'SIGKILL');
}

/** Synchronously sends SIGKILL to every descendant of `rootPid` (not to `rootPid` itself). */
export function killDescendantsNow(rootPid) {
  signal(descendantsOf(rootPid), 'SIGKILL');
}
