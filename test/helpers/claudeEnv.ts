import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Environment overrides for a hermetic run of the real `claude` CLI against a scripted server:
 * outside ANTHROPIC_, CLAUDE_, GIT_ and TASKLOOM_ variables dropped (undefined removes a
 * variable when merged over process.env), claude's config in a temp HOME, and a marker that
 * every process of the call inherits, so the tests can find leftovers in /proc.
 */
export function claudeTestEnv(options: { home: string; baseUrl: string; marker: string }): NodeJS.ProcessEnv {
  const dropped: NodeJS.ProcessEnv = {};
  for (const k of Object.keys(process.env)) if (/^(ANTHROPIC_|CLAUDE_|GIT_|TASKLOOM_)/.test(k)) dropped[k] = undefined;
  return {
    ...dropped,
    HOME: options.home,
    CLAUDE_CONFIG_DIR: join(options.home, 'config'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: 'test-key',
    TASKLOOM_TEST_CASE: options.marker,
  };
}

/**
 * Live processes (not zombies) whose environment carries the test case's marker (set by
 * claudeTestEnv): a claude, or anything it started, left running. Read from /proc directly, not
 * through the engine's own process table, which is what these tests check.
 */
export function leftovers(marker: string): number[] {
  const needle = `TASKLOOM_TEST_CASE=${marker}\0`;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').includes(needle)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state !== 'Z' && state !== 'X') pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}
