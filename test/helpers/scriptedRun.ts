import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs, type CliResult } from './cli';

/** Plans and scenarios for `taskloom run` with the scripted agent, in the words the CLI tests share. */
export const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, acceptance: [], dependsOn });
export const write = (files: Record<string, string>) => ({ write: files, delayMs: 0 });
export const green = { verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 };

/** `taskloom run --plan … --script … --yes` on the built CLI, to its end. */
export function runScripted(dir: string, plan: object, scenario: object, ...flags: string[]): CliResult {
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  return runCli(['run', '--cwd', dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...flags]);
}

/** `taskloom trace --json` of the folder's latest run, or of `runId`. */
export function trace(dir: string, runId?: string): TraceReport {
  const result = runCli(['trace', ...(runId ? [runId] : []), '--json', '--cwd', dir]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as TraceReport;
}

/** The latest run's event log, as written. */
export function runEvents(dir: string): RunEvent[] {
  const { runId } = trace(dir);
  return readFileSync(join(dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunEvent);
}
