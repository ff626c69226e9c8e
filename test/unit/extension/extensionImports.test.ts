import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { importCycles, importGraph, type ImportGraph } from '../../helpers/importGraph';

/** The one module that gathers the command modules (their handlers, by command id). */
const REGISTRY = 'commands/registerCommands.ts';
/** Activation wires everything together: the registry, and what a command module runs when the window opens. */
const ENTRY = 'extension.ts';
const isCommand = (file: string) => file.startsWith('commands/');

/**
 * The extension's import rules (docs/architecture.md › The engine server and the extension), in
 * words naming each import that breaks one: no cycle (counting `import type` too: a drawing of the
 * structure shows those as well); a command module imports no other (what two share lives outside
 * commands/); nothing outside commands/ imports one but the registry and activation: a view, a
 * notification or the chat runs a registered command by id (runCommand.ts) instead.
 */
function extensionImportProblems(graph: ImportGraph): string[] {
  const problems = importCycles(graph).map((cycle) => `import cycle: ${cycle.join(', ')}`);
  for (const [file, edges] of graph) {
    for (const { to } of edges) {
      if (!isCommand(to) || file === REGISTRY || file === ENTRY) continue;
      problems.push(isCommand(file) ? `${file} imports ${to}: a command module imports no other` : `${file} imports ${to}: only the registry and activation import command modules`);
    }
  }
  return problems;
}

const graphOf = (edges: Record<string, Array<string | { to: string; typeOnly: boolean }>>): ImportGraph =>
  new Map(Object.entries(edges).map(([file, targets]) => [file, targets.map((t) => (typeof t === 'string' ? { to: t, typeOnly: false } : t))]));

describe('src/extension imports one way', () => {
  it('has no cycle, no command module importing another, and no view importing a command module', () => {
    const graph = importGraph(join(__dirname, '..', '..', '..', 'src', 'extension'));
    assert.ok(graph.has(REGISTRY) && graph.has(ENTRY) && graph.get(REGISTRY)!.some(({ to }) => to === 'commands/startGoal.ts'), 'the graph is read');
    assert.deepEqual(extensionImportProblems(graph), []);
  });

  it('reports a cycle, even of types only, and a command module importing another', () => {
    const graph = graphOf({
      'commands/startGoal.ts': ['plans/planning.ts', 'commands/planCommands.ts'],
      'commands/planCommands.ts': ['commands/startGoal.ts'],
      'plans/planning.ts': [],
      'services.ts': [{ to: 'runView/runViews.ts', typeOnly: true }],
      'runView/runViews.ts': [{ to: 'services.ts', typeOnly: true }],
    });
    assert.deepEqual(extensionImportProblems(graph), [
      'import cycle: commands/planCommands.ts, commands/startGoal.ts',
      'import cycle: runView/runViews.ts, services.ts',
      'commands/startGoal.ts imports commands/planCommands.ts: a command module imports no other',
      'commands/planCommands.ts imports commands/startGoal.ts: a command module imports no other',
    ]);
  });

  it('reports a view, a tree or the chat importing a command module; the registry and activation may', () => {
    const graph = graphOf({
      [REGISTRY]: ['commands/restoreSnapshot.ts'],
      [ENTRY]: [REGISTRY],
      'commands/restoreSnapshot.ts': [],
      'runView/runViewPanel.ts': ['commands/restoreSnapshot.ts'],
      'tree/runsTreeProvider.ts': [{ to: 'commands/restoreSnapshot.ts', typeOnly: true }],
      'chat/chatParticipant.ts': ['commands/restoreSnapshot.ts'],
    });
    assert.deepEqual(extensionImportProblems(graph), [
      'runView/runViewPanel.ts imports commands/restoreSnapshot.ts: only the registry and activation import command modules',
      'tree/runsTreeProvider.ts imports commands/restoreSnapshot.ts: only the registry and activation import command modules',
      'chat/chatParticipant.ts imports commands/restoreSnapshot.ts: only the registry and activation import command modules',
    ]);
  });

  it('reads a folder\'s imports: type-only ones as such, re-exports and folder indexes as imports, packages and outside files not at all', () => {
    const folder = mkdtempSync(join(tmpdir(), 'taskloom-imports-'));
    try {
      mkdirSync(join(folder, 'views'));
      writeFileSync(join(folder, 'a.ts'), "import type { B } from './b';\nimport { type C, c } from './views';\nimport * as vscode from 'vscode';\nimport { x } from '../outside';\n");
      writeFileSync(join(folder, 'b.ts'), "import { type A } from './a';\nexport { c } from './views/index';\nexport type B = A;\n");
      writeFileSync(join(folder, 'views', 'index.ts'), "export const c = 1;\n");
      assert.deepEqual(importGraph(folder), new Map([
        ['a.ts', [{ to: 'b.ts', typeOnly: true }, { to: 'views/index.ts', typeOnly: false }]],
        ['b.ts', [{ to: 'a.ts', typeOnly: true }, { to: 'views/index.ts', typeOnly: false }]],
        ['views/index.ts', []],
      ]));
      assert.deepEqual(importCycles(importGraph(folder)), [['a.ts', 'b.ts']]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('lint refuses the same imports where a file is written (eslint.config.mjs)', async () => {
    const eslint = new ESLint({ cwd: join(__dirname, '..', '..', '..') });
    const refusals = async (filePath: string, code: string) =>
      (await eslint.lintText(code, { filePath }))[0]!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
    const planted = "import { restoreSnapshot } from '../commands/restoreSnapshot';\nexport const intent = restoreSnapshot;\n";
    for (const view of ['src/extension/runView/planted.ts', 'src/extension/tree/planted.ts']) {
      const [refusal, ...more] = await refusals(view, planted);
      assert.match(refusal ?? '', /Only the registry and activation import command modules/, view);
      assert.deepEqual(more, []);
    }
    const [refusal, ...more] = await refusals('src/extension/commands/planted.ts', "import { startGoal } from './startGoal';\nexport const again = startGoal;\n");
    assert.match(refusal ?? '', /A command module imports no other/);
    assert.deepEqual(more, []);
    assert.deepEqual(await refusals('src/extension/commands/planted.ts', "import { planGoal } from '../plans/planning';\nexport const again = planGoal;\n"), []);
    assert.deepEqual(await refusals('src/extension/commands/registerCommands.ts', "import { startGoal } from './startGoal';\nexport const start = startGoal;\n"), []);
  });
});
