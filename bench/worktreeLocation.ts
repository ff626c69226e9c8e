// Where should task worktrees live: inside the repository (`.taskloom/worktrees`) or outside it?
// `node --import tsx bench/worktreeLocation.ts` makes a Node project and a Python project, adds two
// worktrees of each inside and two outside, and prints what the project's tools see from each place
// (and from the main checkout) and what setup costs there. docs/runs.md › Worktree setup quotes it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const TSC = join(__dirname, '..', 'node_modules', '.bin', 'tsc');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-wtloc-')));
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(GIT_|NODE_TEST_CONTEXT)/.test(k))), LC_ALL: 'C' };

function sh(cwd: string, command: string): { ok: boolean; out: string; ms: number } {
  const started = performance.now();
  const r = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}`, ms: Math.round(performance.now() - started) };
}

function write(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

function repo(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  write(dir, files);
  const git = (args: string[]) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd: dir, env, stdio: 'pipe' });
  git(['init', '-q']);
  git(['add', '-A']);
  git(['commit', '-qm', 'base']);
  writeFileSync(join(dir, '.git', 'info', 'exclude'), '.taskloom/\n');
  return dir;
}

/** Two worktrees inside (.taskloom/worktrees/r/t1, t2) and two outside (a sibling folder). */
function addWorktrees(dir: string): { inside: string[]; outside: string[] } {
  const add = (path: string) => {
    const r = sh(dir, `git worktree add -q --detach ${path} HEAD`);
    if (!r.ok) throw new Error(r.out);
    return { path, ms: r.ms };
  };
  const inside = [1, 2].map((n) => add(join(dir, '.taskloom', 'worktrees', 'r', `t${n}`)));
  const outside = [1, 2].map((n) => add(join(`${dir}-worktrees`, 'r', `t${n}`)));
  line('git worktree add (ms)', `${inside.map((w) => w.ms).join(', ')}`, `${outside.map((w) => w.ms).join(', ')}`);
  return { inside: inside.map((w) => w.path), outside: outside.map((w) => w.path) };
}

const rows: string[] = [];
function line(what: string, inside: string, outside: string): void {
  rows.push(`| ${what} | ${inside} | ${outside} |`);
  process.stderr.write(`${what}: inside ${inside} / outside ${outside}\n`);
}

function nodeProject(): void {
  rows.push('| **Node project** (`left-pad` installed in the main checkout) | inside `.taskloom/worktrees` | outside (sibling folder) |', '| --- | --- | --- |');
  const dir = repo('node-app', {
    'package.json': JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { 'left-pad': 'file:vendor/left-pad' } }),
    'vendor/left-pad/package.json': JSON.stringify({ name: 'left-pad', version: '1.0.0', main: 'index.js' }),
    'vendor/left-pad/index.js': 'module.exports = (s, n) => String(s).padStart(n);\n',
    'vendor/is-odd/package.json': JSON.stringify({ name: 'is-odd', version: '1.0.0', main: 'index.js' }),
    'vendor/is-odd/index.js': 'module.exports = (n) => n % 2 === 1;\n',
    '.gitignore': 'node_modules/\n',
    'test/pad.test.js': "require('node:test')('pads', () => require('node:assert').equal(require('left-pad')('a', 2), ' a'));\n",
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] } }),
    'src/index.ts': 'export const answer: number = 42;\n',
  });
  const install = sh(dir, 'npm install --offline --no-audit --no-fund');
  if (!install.ok) throw new Error(install.out);
  sh(dir, 'git add package-lock.json && git -c user.name=b -c user.email=b@b commit -qm lock');
  const { inside, outside } = addWorktrees(dir);
  const resolveFrom = (wt: string) => {
    const r = sh(wt, `node -p "require.resolve('left-pad')"`);
    return r.ok ? (r.out.trim().startsWith(wt) ? 'the worktree' : 'the main checkout’s node_modules') : 'not found';
  };
  line("`require('left-pad')` before any setup resolves from", resolveFrom(inside[0]!), resolveFrom(outside[0]!));
  const gate = (wt: string) => (sh(wt, 'node --test test/').ok ? 'passes' : 'fails');
  line('the gate `node --test test/` before any setup', gate(inside[0]!), gate(outside[0]!));
  // A task adds a dependency the main checkout does not have: resolution from the parent cannot help.
  for (const wt of [inside[1]!, outside[1]!]) {
    sh(wt, 'npm install --offline --no-audit --no-fund --package-lock-only file:vendor/is-odd');
  }
  const oddBefore = (wt: string) => (sh(wt, `node -e "require('is-odd')"`).ok ? 'found' : 'not found');
  line("a task's new dependency `is-odd`, before setup", oddBefore(inside[1]!), oddBefore(outside[1]!));
  const ci = (wt: string) => sh(wt, 'npm ci --prefer-offline --no-audit --no-fund');
  const ciIn = ci(inside[1]!);
  const ciOut = ci(outside[1]!);
  line('setup `npm ci --prefer-offline` (ms)', `${ciIn.ms}${ciIn.ok ? '' : ' (failed)'}`, `${ciOut.ms}${ciOut.ok ? '' : ' (failed)'}`);
  line("… then `require('is-odd')`", oddBefore(inside[1]!), oddBefore(outside[1]!));
  // The user's own tools, run in the main checkout, while the worktrees exist.
  const countTests = () => {
    const r = sh(dir, 'node --test 2>&1');
    return r.out.match(/^# tests (\d+)/m)?.[1] ?? '?';
  };
  const tscFiles = (cwd: string) => {
    const r = sh(cwd, `${TSC} -p . --listFilesOnly`);
    return r.out.split('\n').filter((f) => f.endsWith('.ts') && !f.includes('/typescript/lib/')).length;
  };
  rmSync(`${dir}-worktrees`, { recursive: true, force: true });
  sh(dir, 'git worktree prune');
  const testsInsideOnly = countTests();
  const tscInsideOnly = tscFiles(dir);
  rmSync(join(dir, '.taskloom'), { recursive: true, force: true });
  sh(dir, 'git worktree prune');
  const testsAlone = countTests();
  const tscAlone = tscFiles(dir);
  line('`node --test` (no arguments) in the main checkout: tests run', `${testsInsideOnly} (alone: ${testsAlone})`, `${testsAlone}`);
  line('`tsc -p .` (no `include`) in the main checkout: project files', `${tscInsideOnly} (alone: ${tscAlone})`, `${tscAlone}`);
}

function pythonProject(): void {
  rows.push('| **Python project** (no pytest.ini; a conftest.py at the root) | inside | outside |', '| --- | --- | --- |');
  const dir = repo('py-app', {
    'calc.py': 'def add(a, b):\n    return a + b\n',
    'conftest.py': 'import os\ndef pytest_report_header(config):\n    return f"conftest from {os.path.dirname(__file__)}"\n',
    'tests/test_calc.py': 'from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    '.gitignore': '.venv/\n__pycache__/\n',
  });
  const { inside, outside } = addWorktrees(dir);
  const venv = (wt: string) => sh(wt, 'python3 -m venv --system-site-packages .venv');
  const vIn = venv(inside[0]!);
  const vOut = venv(outside[0]!);
  line('setup `python3 -m venv --system-site-packages .venv` (ms)', `${vIn.ms}${vIn.ok ? '' : ' (failed)'}`, `${vOut.ms}${vOut.ok ? '' : ' (failed)'}`);
  const pytest = (wt: string) => sh(wt, '.venv/bin/python -m pytest -q -p no:cacheprovider');
  const pIn = pytest(inside[0]!);
  const pOut = pytest(outside[0]!);
  line('gate `.venv/bin/python -m pytest -q` (ms)', `${pIn.ms}${pIn.ok ? '' : ' (failed)'}`, `${pOut.ms}${pOut.ok ? '' : ' (failed)'}`);
  const rootdir = (wt: string) => {
    const r = sh(wt, '.venv/bin/python -m pytest --co -q -p no:cacheprovider 2>&1; .venv/bin/python -m pytest --co -p no:cacheprovider 2>&1 | grep -E "^(rootdir|conftest from)"');
    const root = r.out.match(/^rootdir: (.*)$/m)?.[1]?.split(',')[0];
    return root === wt ? 'the worktree' : (root ?? '?');
  };
  line('pytest rootdir in the worktree', rootdir(inside[0]!), rootdir(outside[0]!));
  const main = sh(dir, 'python3 -m pytest -q --co -p no:cacheprovider 2>&1');
  const collected = main.out.match(/(\d+) tests? collected/)?.[1] ?? '?';
  line('`pytest` in the main checkout: tests collected', collected, collected);
}

nodeProject();
pythonProject();
process.stdout.write(`${rows.join('\n')}\n`);
rmSync(work, { recursive: true, force: true });
