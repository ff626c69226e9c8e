import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedLifecycleScripts, DEFAULT_SENSITIVE_PATHS, sensitivePattern, unreleasedChanges } from '../../src/engine/domain/sensitivePaths';
import { hideValues, redactSecrets, secretValuesInText } from '../../src/engine/io/redactSecrets';
import { criticPrompt } from '../../src/engine/loop/prompts';

const manifest = (scripts: Record<string, string>, dependencies: Record<string, string> = {}) => JSON.stringify({ name: 'x', scripts, dependencies });

describe('sensitive paths', () => {
  it('match CI, agent, editor and hook configuration, nested instruction files, and any case; not ordinary files', () => {
    for (const path of ['.github/workflows/ci.yml', '.GitHub/Workflows/x.yaml', 'packages/api/.vscode/settings.json', 'src/AGENTS.md', '.husky/pre-commit', 'lefthook.yml', '.lefthook-local.yaml', 'Jenkinsfile', '.worktreeinclude', '.mcp.json']) {
      assert.ok(sensitivePattern(path, DEFAULT_SENSITIVE_PATHS), path);
    }
    for (const path of ['src/index.ts', 'README.md', 'docs/workflows.md', 'package.json', '.github/CODEOWNERS']) {
      assert.equal(sensitivePattern(path, DEFAULT_SENSITIVE_PATHS), undefined, path);
    }
  });

  it('compare a package.json\'s lifecycle scripts, not its dependencies or other scripts', () => {
    assert.deepEqual(changedLifecycleScripts(manifest({ test: 'a' }), manifest({ test: 'b' }, { leftpad: '1' })), []);
    assert.deepEqual(changedLifecycleScripts(manifest({}), manifest({ postinstall: 'curl x | sh', prepare: 'husky' })), ['postinstall', 'prepare']);
    assert.deepEqual(changedLifecycleScripts(manifest({ prepare: 'husky' }), manifest({})), ['prepare']);
    assert.deepEqual(changedLifecycleScripts(null, manifest({ install: 'node-gyp rebuild' })), ['install']);
    assert.ok(changedLifecycleScripts(manifest({}), '{ not json').includes('postinstall'), 'an unreadable manifest counts as changing them');
  });

  it('are released by exact paths and globs', () => {
    const changes = [{ path: '.github/workflows/ci.yml', pattern: '.github/workflows/**' }, { path: '.husky/pre-commit', pattern: '**/.husky/**' }];
    assert.deepEqual(unreleasedChanges(changes, ['.github/workflows/ci.yml']), [changes[1]]);
    assert.deepEqual(unreleasedChanges(changes, ['.husky/**', '.github/**']), []);
  });

  it('are named to the critic', () => {
    const task = { id: 't', title: 'T', description: 'd', acceptance: [], dependsOn: [] };
    const prompt = criticPrompt(task, 'diff', undefined, undefined, [{ path: 'package.json', scripts: ['postinstall'] }]);
    assert.match(prompt, /touches sensitive paths[\s\S]*- package\.json \(lifecycle scripts: postinstall\)/);
    assert.doesNotMatch(criticPrompt(task, 'diff', undefined), /sensitive/);
  });
});

describe('secrets of copied configuration files', () => {
  it('are the values of secret-looking names and URL passwords, whatever the file format', () => {
    const text = [
      'API_KEY=abcdefgh12345',
      'export DB_PASSWORD="quoted secret value"',
      'PORT=3000',
      'NODE_ENV=development',
      'DATABASE_URL=postgres://app:pg-Pass-9876@db:5432/app',
      '  "client_secret": "json-secret-value",',
      'token: yaml-token-value',
    ].join('\n');
    assert.deepEqual(secretValuesInText(text).sort(), ['abcdefgh12345', 'json-secret-value', 'pg-Pass-9876', 'quoted secret value', 'yaml-token-value']);
  });

  it('are redacted alone once hidden, in every environment\'s redactor', () => {
    assert.equal(redactSecrets('value: plain-Otter-5521', {}), 'value: plain-Otter-5521');
    hideValues(['plain-Otter-5521']);
    assert.equal(redactSecrets('value: plain-Otter-5521', {}), 'value: [REDACTED]');
    assert.equal(redactSecrets('plain-Otter-5521'), '[REDACTED]');
  });
});
