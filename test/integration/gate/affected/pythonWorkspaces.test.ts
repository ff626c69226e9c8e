import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { affectedPackages } from '../../../../src/engine/gate/affected/affectedPackages';
import { commandForPackages } from '../../../../src/engine/gate/affected/commandForPackages';
import { describeAffectedSupport } from '../../../../src/engine/gate/affected/describeAffectedSupport';
import { readWorkspaceLayout } from '../../../../src/engine/gate/affected/workspaceLayout';
import { commitChange } from '../../../helpers/affectedRepos';
import { tempRepos } from '../../../helpers/fileScoped';

const makeRepo = tempRepos();
const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version']).status === 0;

/**
 * Two Python packages, each with its pyproject.toml: beta depends on alpha (named as pip would
 * accept it, `Acme.Alpha`). The root pyproject.toml only configures pytest. Alpha's integration
 * test needs a service that is not running here, so the whole suite fails.
 */
const PYTHON_REPO: Record<string, string> = {
  'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["packages/alpha/src", "packages/beta/src"]\n',
  'packages/alpha/pyproject.toml': '[project]\nname = "acme-alpha"\nversion = "0.1.0"\ndependencies = ["requests>=2"]\n',
  'packages/alpha/src/acme_alpha/__init__.py': 'def parse(text):\n    return [cell.strip() for cell in text.split(",")]\n',
  'packages/alpha/tests/test_alpha.py': 'import socket\n\nfrom acme_alpha import parse\n\n\ndef test_alpha_parses():\n    assert parse("a, b") == ["a", "b"]\n\n\ndef test_alpha_reaches_its_service():\n    socket.create_connection(("127.0.0.1", 9), timeout=1)\n',
  'packages/alpha/tests/fixtures/sample_project/pyproject.toml': '[project]\nname = "sample"\n',
  'packages/beta/pyproject.toml': '[project]\nname = "acme_beta"\nversion = "0.1.0"\ndependencies = [\n  "Acme.Alpha>=0.1; python_version >= \\"3.9\\"",\n]\n',
  'packages/beta/src/acme_beta/__init__.py': 'from acme_alpha import parse\n\n\ndef normalise(text):\n    return ", ".join(parse(text))\n',
  'packages/beta/tests/test_beta.py': 'from acme_beta import normalise\n\n\ndef test_beta_normalises():\n    assert normalise("a,b") == "a, b"\n',
};

const packageNames = (selection: ReturnType<typeof affectedPackages>) => (selection.kind === 'packages' ? selection.packages.map((pkg) => pkg.name) : selection);

describe('Python packages (several pyproject.toml)', { concurrency: true }, () => {
  test('the layout reads each package with its dependencies (names as pip compares them); a fixture project inside a package is not one', () => {
    assert.deepEqual(readWorkspaceLayout(makeRepo(PYTHON_REPO).dir), {
      tool: 'python',
      packages: [
        { name: 'acme-alpha', dir: 'packages/alpha' },
        { name: 'acme-beta', dir: 'packages/beta' },
      ],
      dependsOn: { 'acme-alpha': [], 'acme-beta': ['acme-alpha'] },
    });
  });

  test('a change in alpha runs alpha and beta; a change in beta runs beta; the root pyproject.toml runs everything', () => {
    const layout = readWorkspaceLayout(makeRepo(PYTHON_REPO).dir)!;
    assert.deepEqual(packageNames(affectedPackages(layout, ['packages/alpha/src/acme_alpha/__init__.py'])), ['acme-alpha', 'acme-beta']);
    assert.deepEqual(packageNames(affectedPackages(layout, ['packages/beta/tests/test_beta.py'])), ['acme-beta']);
    assert.equal(affectedPackages(layout, ['pyproject.toml']).kind, 'full');
  });

  test('python3 -m pytest narrowed to beta passes, running beta\'s tests only, where the whole suite fails', (t) => {
    if (!hasPytest) return t.skip('pytest is not installed (python3 -m pytest)');
    const repo = makeRepo(PYTHON_REPO);
    const layout = readWorkspaceLayout(repo.dir)!;
    const selection = affectedPackages(layout, commitChange(repo, { 'packages/beta/src/acme_beta/__init__.py': 'from acme_alpha import parse\n\n\ndef normalise(text):\n    return ", ".join(parse(text.strip()))\n' }));
    const narrowed = commandForPackages(layout, 'python3 -m pytest -v', selection.kind === 'packages' ? selection.packages : []);
    assert.equal(narrowed, 'python3 -m pytest -v packages/beta');
    const run = (command: string) => spawnSync('sh', ['-c', command], { cwd: repo.dir, encoding: 'utf8', timeout: 120_000 });
    assert.notEqual(run('python3 -m pytest -v').status, 0, "the whole suite fails: alpha's service is not running");
    const result = run(narrowed!);
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    assert.match(result.stdout, /test_beta\.py::test_beta_normalises PASSED/);
    assert.doesNotMatch(result.stdout, /test_alpha/);
  });

  test('pytest commands that narrowing would change run whole: a path, an option with a value, a second command', () => {
    const layout = readWorkspaceLayout(makeRepo(PYTHON_REPO).dir)!;
    const beta = layout.packages.filter((pkg) => pkg.name === 'acme-beta');
    assert.equal(commandForPackages(layout, 'pytest -q -x', beta), 'pytest -q -x packages/beta');
    for (const whole of ['python3 -m pytest tests', 'python3 -m pytest -k parse', 'python3 -m pytest; echo done', 'python3 -m pytest # all', 'python3 -m unittest']) {
      assert.equal(commandForPackages(layout, whole, beta), undefined, whole);
    }
  });

  test('a setup.py package, whose name and dependencies only running it would tell, is run with every change and runs every package', () => {
    const { 'packages/beta/pyproject.toml': _, ...files } = PYTHON_REPO;
    const layout = readWorkspaceLayout(makeRepo({ ...files, 'packages/beta/setup.py': 'from setuptools import setup\n\nsetup(name="acme-beta", install_requires=["acme-alpha"])\n' }).dir)!;
    assert.deepEqual(layout.dependsOn, { 'acme-alpha': ['beta'], beta: ['acme-alpha'] });
    assert.deepEqual(packageNames(affectedPackages(layout, ['packages/alpha/src/acme_alpha/__init__.py'])), ['acme-alpha', 'beta']);
    assert.deepEqual(packageNames(affectedPackages(layout, ['packages/beta/src/acme_beta/__init__.py'])), ['acme-alpha', 'beta']);
  });

  test('a root that is itself a project is one package (its nested projects are its own), unless it declares a uv workspace', async () => {
    const single = makeRepo({ ...PYTHON_REPO, 'pyproject.toml': '[project]\nname = "acme"\n' });
    assert.equal(readWorkspaceLayout(single.dir), undefined);
    const uv = readWorkspaceLayout(makeRepo({ ...PYTHON_REPO, 'pyproject.toml': '[project]\nname = "acme"\n\n[tool.uv.workspace]\nmembers = ["packages/*"]\nexclude = ["packages/beta"]\n', 'packages/gamma/pyproject.toml': '[project]\nname = "gamma"\n' }).dir);
    assert.equal(uv?.declaredIn, 'pyproject.toml');
    assert.deepEqual(uv?.packages.map((pkg) => pkg.dir), ['packages/alpha', 'packages/gamma']);
    assert.equal(await describeAffectedSupport(makeRepo(PYTHON_REPO).dir), 'workspaces (python): 2 packages');
  });
});
