import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { detectGateCommands } from '../../src/engine/gate/detectGateCommands';

function projectWith(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-detect-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return detectGateCommands(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('detectGateCommands', () => {
  it('uses npm test when package.json has a real test script', () => {
    assert.deepEqual(projectWith({ 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) }), ['npm test']);
  });

  it('ignores the placeholder test script of npm init and looks further', () => {
    const placeholder = JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } });
    assert.deepEqual(projectWith({ 'package.json': placeholder }), []);
    assert.deepEqual(projectWith({ 'package.json': placeholder, 'Cargo.toml': '[package]' }), ['cargo test']);
  });

  it('ignores a package.json without a test script or that is not JSON', () => {
    assert.deepEqual(projectWith({ 'package.json': JSON.stringify({ name: 'x' }) }), []);
    assert.deepEqual(projectWith({ 'package.json': '{ not json', 'go.mod': 'module x' }), ['go test ./...']);
  });

  it('knows Cargo, Go, make and Python projects', () => {
    assert.deepEqual(projectWith({ 'Cargo.toml': '[package]' }), ['cargo test']);
    assert.deepEqual(projectWith({ 'go.mod': 'module example.com/x' }), ['go test ./...']);
    assert.deepEqual(projectWith({ Makefile: 'build:\n\tcc x.c\n\ntest: build\n\t./x --self-test\n' }), ['make test']);
    assert.deepEqual(projectWith({ 'pyproject.toml': '[project]' }), ['python3 -m pytest']);
    assert.deepEqual(projectWith({ 'pytest.ini': '[pytest]' }), ['python3 -m pytest']);
  });

  it('needs a real test target in the Makefile', () => {
    assert.deepEqual(projectWith({ Makefile: 'build:\n\tcc x.c\n' }), []);
    assert.deepEqual(projectWith({ Makefile: 'test := unit\nbuild:\n\tcc x.c\n' }), []);
  });

  it('returns nothing for an unknown project', () => {
    assert.deepEqual(projectWith({ 'README.md': '# hi' }), []);
  });
});
