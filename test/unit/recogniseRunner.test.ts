import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { recogniseRunner } from '../../src/engine/gate/testRunners';

/** A project folder with these package.json scripts (and extra files), no git, nothing installed but a `node_modules/.bin`. */
function project(scripts: Record<string, string>, files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-recognise-')));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fx', scripts }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  folders.push(dir);
  return dir;
}
const folders: string[] = [];
after(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const SCRIPTS = {
  test: 'jest',
  'test:unit': 'vitest run --coverage',
  unit: 'tsc -p . && node --test dist/',
  lint: 'eslint .',
  nested: 'npm test',
  chained: 'jest && mocha',
  piped: 'jest | tee out.txt',
};

const runnerOf = (command: string, cwd: string) => recogniseRunner(command, cwd)?.runner;

describe('recogniseRunner (which gate commands the gate reads test by test)', () => {
  const cwd = project(SCRIPTS);

  it('recognises a runner invoked directly, with its options, assignments and npx', () => {
    const expected: Record<string, string> = {
      'node --test': 'node:test',
      'node --import tsx --test test/a.test.ts': 'node:test',
      "node --test --test-reporter=dot 'test/**/*.test.js'": 'node:test',
      jest: 'jest',
      'npx jest --ci': 'jest',
      'npx --no-install jest -c jest.config.js': 'jest',
      'NODE_ENV=test jest --coverage': 'jest',
      'vitest run': 'vitest',
      'vitest --run --coverage': 'vitest',
      'npx vitest run src': 'vitest',
      mocha: 'mocha',
      'npx mocha --recursive test/': 'mocha',
      'python3 -m pytest': 'pytest',
      'python -m pytest -q': 'pytest',
      pytest: 'pytest',
      "pytest -k 'not slow' --cov src tests": 'pytest',
      'go test ./...': 'go test',
      'go test -race -count=1 ./...': 'go test',
      'tsc -p . && node --test': 'node:test',
      'npm run build && CI=1 npx jest': 'jest',
    };
    for (const [command, runner] of Object.entries(expected)) assert.equal(runnerOf(command, cwd), runner, command);
  });

  it('follows npm, pnpm and yarn one level into package.json, and runs the script itself with its node_modules/.bin on PATH', () => {
    const expected: Record<string, string> = {
      'npm test': 'jest',
      'npm t': 'jest',
      'npm run -s test': 'jest',
      'npm run test:unit': 'vitest',
      'npm run-script unit': 'node:test',
      'pnpm test': 'jest',
      'yarn test': 'jest',
      'yarn run unit': 'node:test',
      'npm test -- --ci': 'jest',
    };
    for (const [command, runner] of Object.entries(expected)) assert.equal(runnerOf(command, cwd), runner, command);
    const unit = recogniseRunner('npm run unit', cwd)!.commandFor({ kind: 'all' }, cwd);
    assert.match(unit.command, /^tsc -p \. && node --test .* dist\/$/, 'the build still runs first, then the runner');
    assert.ok(unit.env.PATH!.startsWith(`${join(cwd, 'node_modules', '.bin')}:`));
    assert.match(recogniseRunner('npm test -- --ci', cwd)!.commandFor({ kind: 'all' }, cwd).command, /^jest --ci /, "npm's extra arguments reach the runner");
    assert.match(recogniseRunner('npx jest', cwd)!.commandFor({ kind: 'all' }, cwd).command, /^npx --no-install jest /, 'never a download');
    assert.deepEqual(recogniseRunner('jest', cwd)!.commandFor({ kind: 'all' }, cwd).env, {}, 'a direct command keeps the PATH it had');
  });

  it('does not recognise what it cannot read without running it, two runners, or a runner it does not drive', () => {
    const refused = [
      'make test', 'cargo test', 'node test.js', 'npm run lint', 'npm run nested', 'npm run chained', 'npm run piped', 'npm run missing',
      'jest | tee out.txt', 'jest || true', 'jest; echo done', 'jest > out.txt', 'jest &', '(jest)', 'jest && mocha', 'cd web && jest',
      '$JEST', 'NODE_OPTIONS=$OPTS jest', 'echo `jest`', 'jest "$@"', '~/bin/jest', 'jest\nmocha', 'jest # all',
      'jest --watch', 'jest --json', 'jest --outputFile=x.json', 'vitest', 'vitest run --reporter=dot', 'vitest --watch',
      'mocha --reporter dot', 'mocha -w', 'node --test --test-reporter=junit --test-reporter-destination=out.xml',
      'pytest --pdb', 'pytest --collect-only', 'pytest --some-plugin-option value tests', 'go test -json ./...', 'go test ./... -args -v',
      'npm test --workspaces', 'pnpm test --coverage', 'npx -p jest jest', "python3 -X dev -m pytest",
    ];
    for (const command of refused) assert.equal(recogniseRunner(command, cwd), undefined, command);
  });

  it('does not follow a script npm would run with a pre or post script around it, nor yarn Plug\u2019n\u2019Play', () => {
    assert.equal(recogniseRunner('npm test', project({ test: 'jest', pretest: 'tsc' })), undefined);
    assert.equal(recogniseRunner('npm test', project({ test: 'jest', posttest: 'echo done' })), undefined);
    assert.equal(recogniseRunner('yarn test', project({ test: 'jest' }, { '.pnp.cjs': '' })), undefined);
    assert.equal(recogniseRunner('npm test', project({})), undefined);
    const broken = project({});
    writeFileSync(join(broken, 'package.json'), '{ not json');
    assert.equal(recogniseRunner('npm test', broken), undefined);
  });

  it('offers a selection by changed files or chosen files only where the runner has one and the command says which files it runs', () => {
    assert.deepEqual([...recogniseRunner('jest --ci', cwd)!.selections].sort(), ['all', 'related', 'tests']);
    // `--roots` takes a list: whether `src` is one of its values or a path pattern, only jest knows.
    assert.deepEqual([...recogniseRunner('jest --roots lib src', cwd)!.selections].sort(), ['all', 'tests']);
    assert.deepEqual([...recogniseRunner('mocha', cwd)!.selections].sort(), ['all', 'files', 'tests']);
    const specInConfig = project({}, { '.mocharc.json': '{ "spec": ["test/**/*.spec.js"] }' });
    assert.deepEqual([...recogniseRunner('mocha', specInConfig)!.selections].sort(), ['all', 'tests'], 'mocha adds given files to the ones its configuration names');
  });

  it('cannot say which files mocha runs when its configuration is code or YAML', async () => {
    const yaml = project({}, { '.mocharc.yml': 'spec: test/**/*.spec.js\n' });
    assert.equal(await recogniseRunner('mocha', yaml)!.testFiles!(yaml), undefined);
    assert.ok(!recogniseRunner('mocha', yaml)!.selections.has('files'));
  });

  it('runs nothing for an empty choice, and everything for no change', () => {
    const runner = recogniseRunner('jest', cwd)!;
    assert.equal(runner.commandFor({ kind: 'tests', tests: [] }, cwd).command, 'true');
    assert.equal(recogniseRunner('node --test', cwd)!.commandFor({ kind: 'files', files: [] }, cwd).command, 'true');
    assert.equal(runner.commandFor({ kind: 'related', changed: [] }, cwd).command, runner.commandFor({ kind: 'all' }, cwd).command);
  });
});
