import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { affectedPackages } from '../../../../src/engine/gate/affected/affectedPackages';
import { commandForPackages } from '../../../../src/engine/gate/affected/commandForPackages';
import { readWorkspaceLayout } from '../../../../src/engine/gate/affected/workspaceLayout';
import { tempRepos } from '../../../helpers/fileScoped';

const makeRepo = tempRepos();

/** A Go workspace: the api module requires core; tools stands alone. Read from its files: go itself is not needed. */
const GO_WORKSPACE: Record<string, string> = {
  'go.work': 'go 1.22\n\nuse (\n\t./api\n\t./core // the domain\n\t"./tools"\n)\n\nuse ../elsewhere\n',
  'api/go.mod': 'module example.com/shop/api\n\ngo 1.22\n\nrequire (\n\texample.com/shop/core v0.0.0-00010101000000-000000000000\n\tgithub.com/go-chi/chi/v5 v5.0.12 // indirect\n)\n',
  'api/server.go': 'package api\n',
  'api/server_test.go': 'package api\n',
  'core/go.mod': 'module example.com/shop/core\n\ngo 1.22\n',
  'core/order.go': 'package core\n',
  'core/testdata/go.mod': 'module example.com/fixture\n',
  'tools/go.mod': 'module example.com/shop/tools\n\ngo 1.22\n\nrequire golang.org/x/tools v0.20.0\n',
  'tools/gen.go': 'package tools\n',
};

describe('Go modules', { concurrency: true }, () => {
  test('a go.work names the modules (never one outside the repository); each go.mod says what it requires', () => {
    assert.deepEqual(readWorkspaceLayout(makeRepo(GO_WORKSPACE).dir), {
      tool: 'go',
      declaredIn: 'go.work',
      packages: [
        { name: 'example.com/shop/api', dir: 'api' },
        { name: 'example.com/shop/core', dir: 'core' },
        { name: 'example.com/shop/tools', dir: 'tools' },
      ],
      dependsOn: { 'example.com/shop/api': ['example.com/shop/core'], 'example.com/shop/core': [], 'example.com/shop/tools': [] },
    });
  });

  test('a change in core runs core and api, with go test narrowed to their patterns; go.work itself runs everything', () => {
    const layout = readWorkspaceLayout(makeRepo(GO_WORKSPACE).dir)!;
    const selection = affectedPackages(layout, ['core/order.go']);
    assert.equal(selection.kind, 'packages');
    const packages = selection.kind === 'packages' ? selection.packages : [];
    assert.deepEqual(packages.map((pkg) => pkg.dir), ['api', 'core']);
    assert.equal(commandForPackages(layout, 'go test ./...', packages), 'go test ./api/... ./core/...');
    assert.equal(commandForPackages(layout, 'go test -race -count=1 ./...', packages), 'go test -race -count=1 ./api/... ./core/...');
    assert.equal(commandForPackages(layout, 'go test -run TestOrder ./...', packages), undefined, 'an option with a value: left whole');
    assert.equal(commandForPackages(layout, 'go vet ./...', packages), undefined);
    assert.equal(affectedPackages(layout, ['go.work']).kind, 'full');
  });

  test('several go.mod without a go.work: the layout is read, but go test ./... at the root runs only the root module, so it is not narrowed', () => {
    const { 'go.work': _, ...modules } = GO_WORKSPACE;
    const layout = readWorkspaceLayout(makeRepo(modules).dir)!;
    assert.equal(layout.declaredIn, undefined);
    assert.deepEqual(layout.packages.map((pkg) => pkg.dir), ['api', 'core', 'tools'], 'core/testdata is test data, not a module');
    assert.equal(commandForPackages(layout, 'go test ./...', layout.packages.slice(0, 1)), undefined);
  });

  test('one go.mod is a single module: no layout', () => {
    assert.equal(readWorkspaceLayout(makeRepo({ 'go.mod': 'module example.com/one\n', 'main.go': 'package main\n' }).dir), undefined);
  });
});
