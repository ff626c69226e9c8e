import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * Taskloom's commits carry the repository's own identity (as git resolves it) and honour its
 * signing settings; they are titled by the task, with the task, run, agent and attempt in trailers.
 */

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

/** A HOME with no git config and no system config: what git resolves comes from the repository only. */
function isolatedEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'taskloom-home-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GIT_CONFIG_NOSYSTEM: '1' };
}

function repo(): TempRepo {
  const r = makeTempRepo({ files: { 'README.md': '# identity\n' } });
  cleanups.push(() => r.cleanup());
  return r;
}

const plan = {
  goal: 'Add two notes',
  tasks: [
    { id: 'first-note', title: 'Write the first note', description: 'first', acceptance: [], dependsOn: [] },
    { id: 'second-note', title: 'Write the second note', description: 'second', acceptance: [], dependsOn: ['first-note'] },
  ],
};
const scenario = {
  defaults: { delayMs: 0 },
  tasks: {
    'first-note': { actor: [{ write: { 'first.txt': '1\n' } }] },
    'second-note': { actor: [{ write: { 'second.txt': '2\n' } }] },
  },
};

function run(r: TempRepo, env: NodeJS.ProcessEnv) {
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  return runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true'], { env });
}

function trace(r: TempRepo, env: NodeJS.ProcessEnv): TraceReport {
  return JSON.parse(runCli(['trace', '--json', '--cwd', r.dir], { env }).stdout) as TraceReport;
}

/** Every commit the run made: its author, subject and trailers. */
function runCommits(r: TempRepo, branch: string): Array<{ author: string; subject: string; trailers: string; sha: string }> {
  const base = r.git(['rev-parse', 'main']);
  return r
    .git(['log', '--format=%H%x1f%an <%ae>%x1f%s%x1f%(trailers:only,unfold)%x1e', `${base}..${branch}`])
    .split('\x1e')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [sha, author, subject, trailers] = l.split('\x1f');
      return { sha: sha!, author: author!, subject: subject!, trailers: trailers ?? '' };
    });
}

describe('the commits Taskloom makes', () => {
  it("carry the repository's identity, titled by the task, with the task, run, agent and attempt in trailers", () => {
    const r = repo();
    r.git(['config', 'user.name', 'Ada Lovelace']);
    r.git(['config', 'user.email', 'ada@example.com']);
    const env = isolatedEnv();
    const result = run(r, env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const t = trace(r, env);
    const commits = runCommits(r, t.integration.branch!);
    assert.ok(commits.length >= 4);
    for (const c of commits) assert.equal(c.author, 'Ada Lovelace <ada@example.com>', c.subject);
    const work = commits.find((c) => c.subject === 'Write the first note')!;
    assert.ok(work, JSON.stringify(commits.map((c) => c.subject)));
    assert.match(work.trailers, new RegExp(`^Taskloom-Task: first-note\\nTaskloom-Run: ${t.runId}\\nTaskloom-Agent: scripted\\nTaskloom-Attempt: 1$`));
    const merge = commits.find((c) => c.subject === 'Merge "Write the second note"');
    assert.ok(merge, 'the merge into integration is titled by the task');
    assert.match(merge.trailers, /Taskloom-Task: second-note/);
  });

  it('carry Taskloom\'s own identity where the repository has none', () => {
    const r = repo();
    const env = isolatedEnv();
    assert.equal(run(r, env).code, 0);
    const t = trace(r, env);
    const commits = runCommits(r, t.integration.branch!);
    assert.ok(commits.length >= 4);
    for (const c of commits) assert.equal(c.author, 'Taskloom <taskloom@localhost>', c.subject);
  });

  it('are signed where the repository signs (an SSH key, gpg.format ssh)', () => {
    const r = repo();
    const key = join(r.dir, '..', `${r.dir.split('/').at(-1)}-signing-key`);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'taskloom-test', '-f', key]);
    cleanups.push(() => {
      rmSync(key, { force: true });
      rmSync(`${key}.pub`, { force: true });
    });
    for (const [k, v] of [['user.name', 'Ada'], ['user.email', 'ada@example.com'], ['gpg.format', 'ssh'], ['user.signingkey', `${key}.pub`], ['commit.gpgsign', 'true']]) {
      r.git(['config', k!, v!]);
    }
    const env = isolatedEnv();
    const result = run(r, env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const t = trace(r, env);
    const commits = runCommits(r, t.integration.branch!);
    assert.ok(commits.length >= 4);
    for (const c of commits) assert.match(r.git(['cat-file', 'commit', c.sha]), /^gpgsig -----BEGIN SSH SIGNATURE-----/m, `${c.subject} is signed`);
  });

  it('are never made unsigned when signing fails: the run stops before any commit, saying why', () => {
    const r = repo();
    for (const [k, v] of [['user.name', 'Ada'], ['user.email', 'ada@example.com'], ['gpg.format', 'ssh'], ['user.signingkey', '/nonexistent/key.pub'], ['commit.gpgsign', 'true']]) {
      r.git(['config', k!, v!]);
    }
    const env = isolatedEnv();
    const result = run(r, env);
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /Your repository signs commits \(commit\.gpgsign, gpg\.format ssh\), and signing a test commit failed/);
    assert.match(result.stderr, /never makes unsigned commits/);
    assert.equal(r.git(['branch', '--list', 'taskloom/*']).trim(), '', 'no task branch was made');
  });
});
