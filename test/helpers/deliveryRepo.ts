import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs } from './cli';
import { startGitHubServer, type GitHubServer, type ScriptedCheck } from './githubServer';
import { makeTempRepo, type TempRepo } from './tempRepo';

/**
 * A small Node project whose run is delivered to a scripted GitHub: a real bare repository as
 * `origin` (behind an https URL, as on GitHub, mapped to the bare repository by git's insteadOf),
 * and a CI that really runs the project's lint and tests on each pushed head.
 */

export const OWNER = 'octo';
export const REPO = 'greeter';
const REMOTE_URL = `https://github.example/${OWNER}/${REPO}.git`;

const FILES = {
  'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', private: true, scripts: { test: 'node --test', lint: 'node scripts/lint.js' } }, null, 2) + '\n',
  'src/greet.js': "function greet(name) {\n  return 'Hello, ' + name;\n}\n\nmodule.exports = { greet };\n",
  'test/greet.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { greet } = require('../src/greet');\n\ntest('greets by name', () => assert.strictEqual(greet('Ada'), 'Hello, Ada'));\n",
  // CI lints; the run's own gate only tests, so a lint failure first shows on the pull request.
  'scripts/lint.js': [
    "const fs = require('node:fs');",
    'let problems = 0;',
    "for (const file of fs.readdirSync('src')) {",
    "  fs.readFileSync(`src/${file}`, 'utf8').split('\\n').forEach((line, i) => {",
    "    if (line.includes('console.log')) {",
    '      console.log(`src/${file}:${i + 1}: no console.log in library code`);',
    '      problems++;',
    '    }',
    '  });',
    '}',
    'process.exit(problems ? 1 : 0);',
    '',
  ].join('\n'),
  'README.md': '# greeter\n\nGreets people.\n',
};

const task = (id: string, title: string, files: string[]) => ({ id, title, description: title, acceptance: [], dependsOn: [], files });
export const PLAN = {
  goal: 'Greet with more warmth',
  tasks: [task('exclaim', 'End greetings with an exclamation mark', ['src/greet.js']), task('farewell', 'Say goodbye too', ['src/farewell.js'])],
};

const FAREWELL = "function farewell(name) {\n  console.log('farewell', name);\n  return 'Goodbye, ' + name;\n}\n\nmodule.exports = { farewell };\n";
export const SCENARIO = {
  defaults: { delayMs: 0 },
  tasks: {
    exclaim: {
      actor: [{ write: { 'src/greet.js': "function greet(name) {\n  return 'Hello, ' + name + '!';\n}\n\nmodule.exports = { greet };\n", 'test/greet.test.js': FILES['test/greet.test.js'].replace("'Hello, Ada'", "'Hello, Ada!'") } }],
      // The reviewer's comment on src/greet.js comes to this task's actor.
      fix: [{ write: { 'src/greet.js': 'function greet(name) {\n  return `Hello, ${name}!`;\n}\n\nmodule.exports = { greet };\n' }, text: 'greet now builds its text with a template literal' }],
    },
    farewell: {
      actor: [{ write: { 'src/farewell.js': FAREWELL, 'test/farewell.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { farewell } = require('../src/farewell');\n\ntest('says goodbye', () => assert.strictEqual(farewell('Ada'), 'Goodbye, Ada'));\n" } }],
    },
  },
  pullRequest: {
    actor: [{ patch: [{ path: 'src/farewell.js', find: "  console.log('farewell', name);\n", replace: '' }], text: 'removed the debugging console.log from farewell' }],
  },
};

export interface Delivery {
  r: TempRepo;
  bare: string;
  runId: string;
  env: NodeJS.ProcessEnv;
  server: GitHubServer;
  /** CI's verdicts so far, one entry per head it checked. */
  ciRuns: Array<{ sha: string; lint: boolean; test: boolean }>;
  /** Runs CI on a pushed commit (recorded in ciRuns): what a test's own onHead builds on. */
  ciChecks(sha: string): ScriptedCheck[];
  cleanup(): Promise<void>;
}

/**
 * Gives `r` an origin at github.example/OWNER/REPO that is really a fresh bare repository (git's
 * insteadOf), with main pushed to it; returns the bare repository, for a scripted GitHub to serve.
 */
export function withGitHubOrigin(r: TempRepo): string {
  const bare = mkdtempSync(join(tmpdir(), 'taskloom-remote-'));
  execFileSync('git', ['init', '-q', '--bare', bare]);
  execFileSync('git', ['--git-dir', bare, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  r.git(['remote', 'add', 'origin', REMOTE_URL]);
  r.git(['config', `url.${bare}.insteadOf`, REMOTE_URL]);
  r.git(['push', '-q', 'origin', 'main']);
  return bare;
}

/**
 * A completed run of PLAN in a fresh repository whose origin is a bare repository served by a
 * scripted GitHub. With `reviewer`, that reviewer asks for a change on src/greet.js the first time
 * CI is green on the pull request, and approves the next green head.
 */
export async function deliveredRun(options: { scenario?: object; plan?: object; runArgs?: string[]; replyDelayMs?: number; reviewer?: string } = {}): Promise<Delivery> {
  const r = makeTempRepo({ files: FILES });
  const bare = withGitHubOrigin(r);
  const inputs = writeInputs({ 'plan.json': options.plan ?? PLAN, 'scenario.json': options.scenario ?? SCENARIO });
  const run = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'node --test', ...(options.runArgs ?? [])]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const trace = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  const server = await startGitHubServer({ owner: OWNER, repo: REPO, bareRepo: bare, ...(options.replyDelayMs ? { replyDelayMs: options.replyDelayMs } : {}) });
  const ciRuns: Delivery['ciRuns'] = [];
  const ciChecks = (sha: string) => {
    const checks = runCi(bare, sha);
    ciRuns.push({ sha, lint: checks[0]!.conclusion === 'success', test: checks[1]!.conclusion === 'success' });
    return checks;
  };
  let reviewed = false;
  server.onHead((sha, pull) => {
    const checks = ciChecks(sha);
    const green = checks.every((c) => c.conclusion === 'success');
    if (options.reviewer && green) {
      server.addReview(
        pull.number,
        reviewed
          ? { user: options.reviewer, state: 'APPROVED', body: 'Thanks!' }
          : { user: options.reviewer, state: 'CHANGES_REQUESTED', body: 'Nearly there.', comments: [{ path: 'src/greet.js', line: 2, body: 'Please use a template literal here.' }] },
      );
      reviewed = true;
    }
    return checks;
  });
  return {
    r,
    bare,
    runId: trace.runId,
    env: { GITHUB_TOKEN: server.token, GH_TOKEN: '', GITHUB_API_URL: server.url },
    server,
    ciRuns,
    ciChecks,
    async cleanup() {
      await server.close();
      r.cleanup();
      rmSync(bare, { recursive: true, force: true });
    },
  };
}

/** A person's commit of `files` on `branch` of the remote, pushed as they would from their own clone. */
export function pushAsPerson(d: Delivery, branch: string, files: Record<string, string>, message: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-person-'));
  try {
    execFileSync('git', ['clone', '-q', '-b', branch, d.bare, dir]);
    for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
    execFileSync('git', ['-C', dir, 'add', '-A']);
    execFileSync('git', ['-C', dir, '-c', 'user.name=Colleague', '-c', 'user.email=c@example.com', 'commit', '-qm', message]);
    execFileSync('git', ['-C', dir, 'push', '-q', 'origin', branch]);
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CI for one pushed commit: a fresh clone at `sha`, then `npm run lint` and `npm test` as GitHub Actions would. */
function runCi(bare: string, sha: string): ScriptedCheck[] {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-ci-'));
  try {
    execFileSync('git', ['clone', '-q', bare, dir]);
    execFileSync('git', ['-C', dir, 'checkout', '-q', sha]);
    const step = (args: string[]) => {
      try {
        return { ok: true, output: execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe' }) };
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string };
        return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
      }
    };
    const lint = step(['scripts/lint.js']);
    const tests = step(['--test']);
    const annotations = [...lint.output.matchAll(/^(\S+?):(\d+): (.+)$/gm)].map((m) => ({ path: m[1]!, line: Number(m[2]), message: m[3]! }));
    return [
      { name: 'lint', conclusion: lint.ok ? 'success' : 'failure', title: lint.ok ? 'lint passed' : `${annotations.length} lint problem(s)`, summary: lint.output, annotations },
      { name: 'test', conclusion: tests.ok ? 'success' : 'failure', title: tests.ok ? 'tests passed' : 'tests failed', summary: tests.output.slice(-4000) },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
