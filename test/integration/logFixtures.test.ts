import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { LOG_FIXTURES_DIR, type FixtureMeta } from '../fixtures/logs/fixtureCases';
import { runCli } from '../helpers/cli';

/**
 * Every run log an earlier release wrote (test/fixtures/logs/<release>/<case>, recorded by
 * recordLogs.ts) must load with today's code and resume to an end: an upgrade never makes a
 * user's run unloadable, nor strands it.
 */

const green = (summary: string) => ({ verdict: { decision: 'green', summary, findings: [] } });

/** What each case is expected to look like when loaded, and the agent it resumes with. */
const EXPECTED: Record<string, { loaded: Record<string, string>; status: string; resume: object; resumed: Record<string, string>; exit: number }> = {
  completed: {
    loaded: { upper: 'MERGED', lower: 'MERGED', docs: 'MERGED' },
    status: 'completed',
    resume: {},
    resumed: { upper: 'MERGED', lower: 'MERGED', docs: 'MERGED' },
    exit: 0,
  },
  conflict: {
    // 0.1 merged trim and readme, and recorded pad's conflict while calling pad GREEN.
    loaded: { trim: 'MERGED', pad: 'GREEN', readme: 'MERGED' },
    status: 'needs_human',
    resume: {
      tasks: {
        pad: {
          resolve: [
            {
              write: {
                'src/index.js':
                  "'use strict';\n\nfunction identity(s) {\n  return s;\n}\n\nfunction trim(s) {\n  return String(s).trim();\n}\n\nfunction pad(s, n) {\n  return String(s).padStart(n);\n}\n\nmodule.exports = {\n  pad,\n  trim,\n  identity,\n};\n",
              },
            },
          ],
          critic: [green('both helpers kept')],
        },
      },
    },
    resumed: { trim: 'MERGED', pad: 'MERGED', readme: 'MERGED' },
    exit: 0,
  },
  'needs-human': {
    loaded: { hard: 'NEEDS_HUMAN', 'after-hard': 'SKIPPED', easy: 'MERGED' },
    status: 'needs_human',
    resume: {},
    // Nothing can move without a person: resume stops at once, in the same place.
    resumed: { hard: 'NEEDS_HUMAN', 'after-hard': 'SKIPPED', easy: 'MERGED' },
    exit: 1,
  },
  paused: {
    loaded: { first: 'GREEN', second: 'PENDING' },
    status: 'paused',
    resume: { tasks: { second: { actor: [{ write: { 'second.txt': 'second\n' } }] } } },
    resumed: { first: 'MERGED', second: 'MERGED' },
    exit: 0,
  },
  cancelled: {
    loaded: { quick: 'GREEN', slow: 'CANCELLED', later: 'SKIPPED' },
    status: 'cancelled',
    resume: { tasks: { slow: { actor: [{ write: { 'slow.txt': 'slow\n' } }] } } },
    resumed: { quick: 'MERGED', slow: 'MERGED', later: 'MERGED' },
    exit: 0,
  },
  interrupted: {
    loaded: { 'done-first': 'GREEN', killed: 'BUILDING' },
    status: 'running',
    resume: { tasks: { killed: { actor: [{ write: { 'killed.txt': 'killed\n' } }] } } },
    resumed: { 'done-first': 'MERGED', killed: 'MERGED' },
    exit: 0,
  },
};

function git(cwd: string, args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^GIT_/i.test(k)));
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@localhost', ...args], { cwd, env: { ...env, LC_ALL: 'C' }, encoding: 'utf8' }).trim();
}

/** The repository as the recorded run left it (branches, snapshot refs), at the path its log names, with the log and state.json. */
function restore(dir: string, meta: FixtureMeta): void {
  rmSync(meta.repoRoot, { recursive: true, force: true });
  mkdirSync(meta.repoRoot, { recursive: true });
  git(meta.repoRoot, ['-c', 'init.defaultBranch=main', 'init', '-q']);
  git(meta.repoRoot, ['fetch', '-q', '--update-head-ok', join(dir, 'repo.bundle'), 'refs/*:refs/*']);
  git(meta.repoRoot, ['reset', '-q', '--hard', 'main']);
  const runDir = join(meta.repoRoot, '.taskloom', 'runs', meta.runId);
  mkdirSync(runDir, { recursive: true });
  cpSync(join(dir, 'events.jsonl'), join(runDir, 'events.jsonl'));
  if (existsSync(join(dir, 'state.json'))) cpSync(join(dir, 'state.json'), join(meta.repoRoot, '.taskloom', 'state.json'));
}

function trace(meta: FixtureMeta): TraceReport {
  const result = runCli(['trace', meta.runId, '--json', '--cwd', meta.repoRoot]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /discarded|corrupt|rebuilt/i, 'an older snapshot is rebuilt quietly, not reported as damage');
  return JSON.parse(result.stdout) as TraceReport;
}

const states = (report: TraceReport): Record<string, string> => Object.fromEntries(report.tasks.map((t) => [t.id, t.state]));

for (const release of readdirSync(LOG_FIXTURES_DIR, { withFileTypes: true }).filter((e) => e.isDirectory())) {
  describe(`run logs written by release ${release.name}`, () => {
    for (const name of readdirSync(join(LOG_FIXTURES_DIR, release.name))) {
      const dir = join(LOG_FIXTURES_DIR, release.name, name);
      const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as FixtureMeta;
      const expected = EXPECTED[name];

      it(`${name}: loads, and resumes to an end`, { skip: expected ? false : `no expectations for the "${name}" case` }, () => {
        restore(dir, meta);
        try {
          const loaded = trace(meta);
          assert.deepEqual(states(loaded), expected!.loaded);
          assert.equal(loaded.status, expected!.status);

          mkdirSync(dirname(meta.scriptPath), { recursive: true });
          writeFileSync(meta.scriptPath, JSON.stringify({ defaults: { delayMs: 0 }, ...expected!.resume }));
          const resumed = runCli(['resume', meta.runId, '--yes', '--cwd', meta.repoRoot]);
          assert.equal(resumed.code, expected!.exit, resumed.stdout + resumed.stderr);
          const after = trace(meta);
          assert.deepEqual(states(after), expected!.resumed);
          if (expected!.exit === 0) {
            assert.equal(after.status, 'completed');
            assert.equal(after.integration.gatePassed, true);
          }
          if (name === 'conflict') {
            const index = git(meta.repoRoot, ['show', `${after.integration.branch}:src/index.js`]);
            assert.match(index, /function trim/);
            assert.match(index, /function pad/);
          }
          // Resuming again never repeats work: a finished run stays as it is.
          const again = runCli(['resume', meta.runId, '--yes', '--cwd', meta.repoRoot]);
          assert.equal(again.code, expected!.exit, again.stdout + again.stderr);
          assert.deepEqual(states(trace(meta)), expected!.resumed);
        } finally {
          rmSync(meta.repoRoot, { recursive: true, force: true });
        }
      });
    }
  });
}

describe('a recorded log with one event damaged in the middle', () => {
  const dir = join(LOG_FIXTURES_DIR, 'v0.1-a732323', 'completed');
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as FixtureMeta;

  it('is refused by trace and resume, naming the line, the event and the field, with exit 74 and what to do', () => {
    restore(dir, meta);
    try {
      const log = join(meta.repoRoot, '.taskloom', 'runs', meta.runId, 'events.jsonl');
      const lines = readFileSync(log, 'utf8').split('\n');
      const at = lines.findIndex((l, i) => i > 10 && (JSON.parse(l) as { type: string }).type === 'task_transition');
      const event = JSON.parse(lines[at]!) as Record<string, unknown>;
      lines[at] = JSON.stringify({ ...event, to: 'DONE' });
      writeFileSync(log, lines.join('\n'));

      for (const command of [['trace', meta.runId], ['resume', meta.runId, '--yes']]) {
        const result = runCli([...command, '--cwd', meta.repoRoot]);
        assert.equal(result.code, 74, `${command[0]}: ${result.stdout}${result.stderr}`);
        const said = result.stderr;
        assert.ok(said.includes(`${log}, line ${at + 1}: event ${event.seq as number} (task_transition) is malformed: to: Invalid option`), said);
        assert.match(said, /\(found "DONE"\)/);
        assert.match(said, /Taskloom will not guess what it said\. Repair or remove the line by hand\.$/m);
        assert.doesNotMatch(said, /internal error|    at /i, 'no stack trace');
      }
    } finally {
      rmSync(meta.repoRoot, { recursive: true, force: true });
    }
  });
});
