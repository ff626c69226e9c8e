// Hostile input (plans, task ids, goals, agent output): a clear validation error or a safe run.
// Nothing is executed, and nothing is written outside the repository's .git, its .taskloom/ and
// the worktrees under it. badInput.test.ts covers the ordinary mistakes; this file the attacks.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { stripTerminalControls } from '../../src/engine/text/terminalText';
import { runCli } from '../helpers/cli';

const ESC = '\u001b';
const ANSI = `${ESC}[2J${ESC}]0;pwned title\u0007${ESC}[31m`;
const SHELL = '$(touch PWNED) `touch PWNED`; touch PWNED && touch PWNED | touch PWNED > PWNED';
const HTML = '<script>alert(1)</script> <img src=x onerror="alert(2)"> [click](javascript:alert(3)) ![x](http://evil.invalid/x.png)';
const RTL = 'txt.\u202Eexe.sh';

const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@localhost', '-c', 'commit.gpgsign=false'];

interface Sandbox {
  /** A fresh temp folder that holds the repository and the inputs, and nothing else: the canary. */
  parent: string;
  repo: string;
  inputs: string;
  git(args: string[]): string;
  /** Every path under `parent` but the repository's .git and .taskloom, and the input files. */
  outsideListing(): string[];
  refs(): string[];
}

const sandboxes: string[] = [];
after(() => sandboxes.forEach((d) => rmSync(d, { recursive: true, force: true })));

function sandbox(): Sandbox {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-hostile-')));
  sandboxes.push(parent);
  const repo = join(parent, 'repo');
  const inputs = join(parent, 'inputs');
  mkdirSync(repo);
  mkdirSync(inputs);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^GIT_/i.test(k)) env[k] = v;
  const git = (args: string[]) => execFileSync('git', [...IDENTITY, ...args], { cwd: repo, env, encoding: 'utf8', stdio: 'pipe' }).replace(/\n$/, '');
  git(['-c', 'init.defaultBranch=main', 'init', '-q']);
  git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
  writeFileSync(join(repo, 'README.md'), '# hostile\n');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'initial']);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = join(dir, e.name);
      const rel = relative(parent, p);
      if (rel === join('repo', '.git') || rel === join('repo', '.taskloom') || rel === 'inputs') return [];
      return e.isDirectory() ? [`${rel}/`, ...walk(p)] : [rel];
    });
  return {
    parent,
    repo,
    inputs,
    git,
    outsideListing: () => walk(parent).sort(),
    refs: () => git(['for-each-ref', '--format=%(refname)']).split('\n').filter(Boolean).sort(),
  };
}

/** Files or folders named PWNED (or created by a `> PWNED`) anywhere under `dir`. */
function pwnedUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name.includes('PWNED')) found.push(p);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(p);
    }
  };
  walk(dir);
  return found;
}

/** Top-level only for shared folders (the test's cwd, the temp dir): a `touch` lands right there. */
const pwnedAt = (dir: string) => readdirSync(dir).filter((n) => n.includes('PWNED')).map((n) => join(dir, n));

/**
 * Runs `body` and checks the aftermath: no PWNED anywhere, no file outside .git and
 * .taskloom, new refs only under taskloom/, every worktree under .taskloom/worktrees or .git.
 */
function guarded<T>(box: Sandbox, body: () => T): T {
  const outside = box.outsideListing();
  const refs = box.refs();
  const shared = [process.cwd(), tmpdir()].map((d) => [d, pwnedAt(d)] as const);
  const result = body();
  assert.deepEqual(pwnedUnder(box.parent), [], 'something ran a hostile command');
  for (const [dir, before] of shared) assert.deepEqual(pwnedAt(dir), before, `a PWNED file appeared in ${dir}`);
  assert.deepEqual(box.outsideListing(), outside, 'files appeared or vanished outside .git and .taskloom');
  assert.equal(box.git(['status', '--porcelain']), '', 'the user working tree was touched');
  const added = box.refs().filter((r) => !refs.includes(r));
  assert.deepEqual(
    added.filter((r) => !r.startsWith('refs/heads/taskloom/') && !r.startsWith('refs/taskloom/')),
    [],
    'refs created outside taskloom/',
  );
  const worktrees = box
    .git(['worktree', 'list', '--porcelain'])
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .filter((p) => p !== box.repo);
  for (const w of worktrees) {
    assert.ok(w.startsWith(join(box.repo, '.taskloom', 'worktrees') + '/') || w.startsWith(join(box.repo, '.git') + '/'), `worktree outside: ${w}`);
  }
  return result;
}

function input(box: Sandbox, name: string, content: unknown): string {
  const path = join(box.inputs, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, title: `Task ${id}`, description: `do ${id}`, ...extra });
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] } };

function runPlan(box: Sandbox, plan: unknown, scenario: object = {}, ...flags: string[]) {
  return runCli([
    'run', '--cwd', box.repo, '--plan', input(box, 'plan.json', plan), '--script', input(box, 'scenario.json', scenario), '--yes', ...flags,
  ]);
}

function events(box: Sandbox): RunEvent[] {
  const [runId] = readdirSync(join(box.repo, '.taskloom', 'runs'));
  return readFileSync(join(box.repo, '.taskloom', 'runs', runId!, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunEvent);
}

function decisions(box: Sandbox): string {
  const [runId] = readdirSync(join(box.repo, '.taskloom', 'runs'));
  return readFileSync(join(box.repo, '.taskloom', 'runs', runId!, 'DECISIONS.md'), 'utf8');
}

/** What a Markdown preview would turn into markup or a terminal into control: none may survive. */
function assertInertMarkdown(md: string): void {
  assert.ok(!md.includes(ESC), 'DECISIONS.md holds a raw ESC');
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(md), 'DECISIONS.md holds a control or bidi character');
  assert.doesNotMatch(md, /<\s*(script|img|iframe|a\b)/i, 'raw HTML in DECISIONS.md');
  assert.doesNotMatch(md, /(?<!\\)\]\((?:javascript|http)/i, 'a live Markdown link or image in DECISIONS.md');
}

describe('hostile task ids and plans', () => {
  // Each id with the rule its error must name.
  const HOSTILE_IDS: Array<[string, RegExp]> = [
    ['../../etc/x', /contains a slash.*contains "\.\."/],
    ['a/b', /contains a slash/],
    ['..', /must start with a letter or digit/],
    ['$(touch PWNED)', /contains whitespace, contains "\$", "\(", "\)"/],
    ['`touch PWNED`', /contains "`"/],
    ['a;touch PWNED', /contains ";"/],
    ['-rf', /must start with a letter or digit/],
    ['--help', /must start with a letter or digit/],
    ['-c', /must start with a letter or digit/],
    ['--upload-pack=touch', /must start with a letter or digit/],
    ['a\nb', /contains whitespace/],
    ['a\u0000b', /contains "\\u0000"/],
    ['a\u202Eb', /contains "\\u202e"/],
    ['a\u200Bb', /contains "\\u200b"/],
    ['\u0430dmin', /contains "\\u0430"/], // Cyrillic а, a homoglyph of "admin"
    ['x'.repeat(10_000), /is 10000 characters long \(at most 48\)/],
    ['a..b', /contains "\.\."/],
    ['HEAD@{1}', /contains "@", "\{", "\}"/],
    ['a.lock', /ends with "\.lock"/],
    ['nul', /device name Windows/],
  ];

  it('rejects every hostile id with exit 2, naming the field and the rule, and runs nothing', () => {
    const box = sandbox();
    const plan = { goal: 'hostile ids', tasks: [task('ok'), ...HOSTILE_IDS.map(([id]) => task(id))] };
    const result = guarded(box, () => runPlan(box, plan));
    assert.equal(result.code, 2, result.stdout + result.stderr);
    const lines = result.stderr.split('\n');
    HOSTILE_IDS.forEach(([id, rule], i) => {
      const line = lines.find((l) => l.includes(`tasks[${i + 1}].id: `));
      assert.ok(line, `no problem names tasks[${i + 1}].id (${JSON.stringify(id.slice(0, 20))})`);
      assert.match(line, /is not usable as a branch or folder name/);
      assert.match(line, rule);
    });
    // The message shows the ids, it does not replay them: no raw control, bidi or zero-width
    // character reaches the terminal, and a 10k-character id is cut short.
    assert.doesNotMatch(result.stderr, /[\u0000\u200b\u202e\u0430]/);
    assert.ok(result.stderr.length < 20_000, `stderr is ${result.stderr.length} characters`);
    assert.equal(existsSync(join(box.repo, '.taskloom', 'runs')), false, 'no run was created');
  });

  it('rejects hostile ids in dependsOn, self-dependencies and longer cycles together', () => {
    const box = sandbox();
    const plan = {
      goal: 'bad graph',
      tasks: [
        task('a', { dependsOn: ['a'] }),
        task('b', { dependsOn: ['d'] }),
        task('c', { dependsOn: ['b'] }),
        task('d', { dependsOn: ['c'] }),
        task('e', { dependsOn: ['$(touch PWNED)', '../a', 'a\u202Eb'] }),
      ],
    };
    const result = guarded(box, () => runPlan(box, plan));
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /task "a" depends on itself/);
    assert.match(result.stderr, /dependency cycle: b → d → c → b/);
    assert.match(result.stderr, /task "e" depends on unknown task "\$\(touch PWNED\)"/);
    assert.match(result.stderr, /task "e" depends on unknown task "\.\.\/a"/);
    assert.match(result.stderr, /task "e" depends on unknown task "a\\u202eb"/);
    assert.doesNotMatch(result.stderr, /\u202e/);
  });

  it('rejects hostile ids in a Markdown plan too', () => {
    const box = sandbox();
    const md = '# Goal: hostile markdown\n\n- [ ] -rf: wipe\n  do it\n- [ ] a;touch: semicolon\n  do it\n  - depends: $(touch\n';
    const result = guarded(box, () =>
      runCli(['run', '--cwd', box.repo, '--plan', input(box, 'plan.md', md), '--script', input(box, 's.json', {}), '--yes']),
    );
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /"-rf" is not usable.*must start with a letter or digit/);
    assert.match(result.stderr, /"a;touch" is not usable.*contains ";"/);
    assert.match(result.stderr, /depends on unknown task "\$\(touch"/);
  });

  it('refuses a 5 MB plan of 10k tasks, with the limit in the message', () => {
    const box = sandbox();
    const tasks = Array.from({ length: 10_000 }, (_, i) => task(`t${i}`, { title: 'T'.repeat(200), description: 'D'.repeat(250), dependsOn: i ? [`t${i - 1}`] : [] }));
    const result = guarded(box, () => runPlan(box, { goal: 'huge', tasks }));
    assert.ok(readFileSync(join(box.inputs, 'plan.json')).length > 5_000_000);
    assert.equal(result.code, 2, result.stdout.slice(0, 500) + result.stderr.slice(0, 500));
    assert.match(result.stderr, /tasks: has 10000 tasks; a plan has at most 1000/);
    assert.ok(result.stderr.length < 5_000, 'one problem, not ten thousand');
    assert.equal(existsSync(join(box.repo, '.taskloom', 'runs')), false);
  });

  it('refuses a plan whose fields are huge, and a plan file too big to read', () => {
    const box = sandbox();
    const big = 'x'.repeat(1024 * 1024);
    const result = guarded(box, () => runPlan(box, { goal: big, tasks: [task('a', { title: big, acceptance: [big] })] }));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /goal: is 1048576 characters long \(at most 20000\)/);
    assert.match(result.stderr, /tasks\[0\]\.title \(task "a"\): is 1048576 characters long \(at most 300\)/);
    assert.match(result.stderr, /tasks\[0\]\.acceptance\[0\] \(task "a"\): is 1048576 characters long/);
    assert.ok(result.stderr.length < 5_000);

    const huge = input(box, 'huge.json', `{"goal": "${'y'.repeat(11 * 1024 * 1024)}", "tasks": []}`);
    const file = guarded(box, () => runCli(['run', '--cwd', box.repo, '--plan', huge, '--script', '/dev/null', '--yes']));
    assert.equal(file.code, 2);
    assert.match(file.stderr, /huge\.json is 11\.0 MB; a plan file may be at most 10\.0 MB/);
  });
});

describe('hostile goals and agent output', () => {
  let cliOutput: Record<string, string> | undefined;
  const HOSTILE_TEXT = `${SHELL} ${HTML} ${ANSI} ${RTL}`;

  it('runs a goal full of shell metacharacters as plain data, through the planner', () => {
    const box = sandbox();
    const goal = `${SHELL} <script>alert(1)</script> ${ANSI}`;
    const planned = {
      goal: 'ignored: the run keeps the user goal',
      tasks: [task('safe', { title: `Title ${HOSTILE_TEXT}`, description: `Describe ${HOSTILE_TEXT}`, acceptance: [HOSTILE_TEXT], files: ['$(touch PWNED).txt'] })],
    };
    const scenario = {
      planner: [{ output: planned }],
      tasks: { safe: { actor: [{ write: { 'out.txt': 'ok\n' }, text: 'done' }], critic: [green] } },
    };
    const result = guarded(box, () =>
      runCli(['run', '--cwd', box.repo, '--goal', goal, '--script', input(box, 'scenario.json', scenario), '--yes', '--gate', 'test -f out.txt', '--on-base-failure', 'required']),
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const created = events(box).find((e) => e.type === 'run_created') as Extract<RunEvent, { type: 'run_created' }>;
    assert.equal(created.goal, stripTerminalControls(goal), 'the goal is recorded word for word, without its terminal escapes');
    assert.ok(created.goal.includes('$(touch PWNED)') && !created.goal.includes(ESC));
    const proposed = events(box).find((e) => e.type === 'plan_proposed') as Extract<RunEvent, { type: 'plan_proposed' }>;
    const title = proposed.plan.tasks[0]!.title;
    assert.ok(title.includes('<script>alert(1)</script>'), 'the text is kept');
    assert.ok(!title.includes(ESC) && !title.includes('\u202e'), 'the planner plan lost its escapes and bidi overrides at validation');
    assertInertMarkdown(decisions(box));
  });

  it('refuses a goal as big as one argument can be (a 1 MB goal cannot pass argv) before creating a run', () => {
    const box = sandbox();
    // Linux caps one argv string at 128 KiB (MAX_ARG_STRLEN); a 1 MB goal in a plan file is refused above.
    const goal = `${SHELL} `.repeat(Math.floor(120_000 / (SHELL.length + 1)));
    const scenario = { planner: [{ output: { goal: 'x', tasks: [task('a')] } }], tasks: { a: { actor: [{ write: { 'a.txt': 'a' } }], critic: [green] } } };
    const result = guarded(box, () => runCli(['run', '--cwd', box.repo, '--goal', goal, '--script', input(box, 'scenario.json', scenario), '--yes', '--gate', 'true']));
    assert.equal(result.code, 2, result.stderr.slice(0, 500));
    assert.match(result.stderr, /goal: is \d+ characters long \(at most 20000\)/);
    assert.equal(existsSync(join(box.repo, '.taskloom', 'runs')) && readdirSync(join(box.repo, '.taskloom', 'runs')).length > 0, false, 'no run was created');
  });

  it('keeps hostile actor text, critic summaries and findings inert in DECISIONS.md and trace', () => {
    const box = sandbox();
    const finding = { file: `<img src=x onerror=alert(1)>${ESC}[2J.ts`, line: 1, severity: 'blocker', category: 'security', message: HOSTILE_TEXT };
    const scenario = {
      tasks: {
        a: {
          actor: [
            { write: { 'a.txt': 'a\n' }, text: `actor says ${HOSTILE_TEXT}` },
            { write: { 'a.txt': 'fixed\n' }, text: `fixed ${HOSTILE_TEXT}` },
          ],
          critic: [
            { verdict: { decision: 'changes_required', summary: `critic ${HOSTILE_TEXT}`, findings: [finding] } },
            { verdict: { decision: 'green', summary: `green ${HOSTILE_TEXT}\n# Heading injected\n| a | b |`, findings: [] } },
          ],
        },
      },
    };
    const plan = { goal: `goal ${HOSTILE_TEXT}`, tasks: [task('a', { title: `title ${HOSTILE_TEXT}`, description: HOSTILE_TEXT })] };
    const result = guarded(box, () => runPlan(box, plan, scenario, '--gate', 'true'));
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.ok(!result.stdout.split('\n').some((l) => l.includes(`Goal goal`) && l.includes(ESC)), 'run output replays an escape from the plan');

    const md = decisions(box);
    assertInertMarkdown(md);
    // Shown, not dropped: the escaped forms are there.
    assert.match(md, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(md, /&lt;img src=x onerror=/);
    assert.ok(events(box).some((e) => JSON.stringify(e).includes('critic $(touch PWNED)')), 'the summary is kept in the log');

    const json = JSON.parse(runCli(['trace', '--json', '--cwd', box.repo]).stdout) as TraceReport;
    assert.equal(json.tasks[0]!.state, 'MERGED');
    cliOutput = { run: result.stdout, trace: runCli(['trace', '--cwd', box.repo]).stdout };
  });

  // Agent text reaches the CLI through events, which the store cleans of controls when it writes them.
  it('prints no raw ESC or bidi override from agent text in run progress and trace', () => {
    assert.ok(cliOutput, 'the run above did not finish');
    for (const [what, out] of Object.entries(cliOutput)) {
      const bad = out.split('\n').filter((l) => l.includes(ESC) || /[\u202a-\u202e]/.test(l));
      assert.deepEqual(bad.map((l) => JSON.stringify(l).slice(0, 160)), [], `${what} output`);
    }
  });
});
