import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { drawFolderImports, engineFolderImports, engineFolders, foldersOnCycles, type FolderImports } from '../helpers/engineImports';

const repoRoot = join(__dirname, '..', '..');
const engineDir = join(repoRoot, 'src', 'engine');
const configFile = join(repoRoot, 'eslint.config.mjs');

/** The layer order as eslint.config.mjs states it, bottom first. */
async function engineLayers(): Promise<string[]> {
  const config = (await import(pathToFileURL(configFile).href)) as { ENGINE_LAYERS: string[] };
  return config.ENGINE_LAYERS;
}

describe('the engine layers lint rule (eslint.config.mjs)', () => {
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: repoRoot, overrideConfigFile: configFile });
  });

  /** What the import rule says of `code` as if it were the file at `path` (from the repository's root). */
  async function refusedImports(path: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: join(repoRoot, path) });
    return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
  }

  it('refuses an import of a folder above: the domain importing the engine facade', async () => {
    const refused = await refusedImports('src/engine/domain/planted.ts', "import type { TaskloomEngine } from '../run/engine';\nexport type Planted = TaskloomEngine;\n");
    assert.equal(refused.length, 1);
    assert.match(refused[0]!, /'\.\.\/run\/engine'.*engine\/domain is the bottom layer/);
  });

  it('refuses the merge queue importing delivery, and a nested file of agents importing the session', async () => {
    const fromQueue = await refusedImports('src/engine/queue/planted.ts', "import { applyRun } from '../deliver/applyRun';\nexport const planted = applyRun;\n");
    assert.equal(fromQueue.length, 1);
    assert.match(fromQueue[0]!, /engine\/queue imports only the folders below it \(.*session\)/);
    const nested = await refusedImports('src/engine/agents/claude/planted.ts', "import { callAgent } from '../../session/agentCall';\nexport const planted = callAgent;\n");
    assert.equal(nested.length, 1);
  });

  it('refuses the engine server to the use cases below it, and to the CLI beside it', async () => {
    assert.equal((await refusedImports('src/engine/usecases/planted.ts', "import { WorkspaceHosts } from '../server/workspaceHosts';\nexport const planted = WorkspaceHosts;\n")).length, 1);
    assert.equal((await refusedImports('src/cli/planted.ts', "import { WorkspaceHosts } from '../engine/server/workspaceHosts';\nexport const planted = WorkspaceHosts;\n")).length, 1);
  });

  it('keeps the MCP server beside the CLI, not on top of it', async () => {
    assert.equal((await refusedImports('src/mcp/planted.ts', "import { FLAG_LABELS } from '../cli/runOptions';\nexport const planted = FLAG_LABELS;\n")).length, 1);
    assert.equal((await refusedImports('src/commandLine/planted.ts', "import { FLAG_LABELS } from '../cli/runOptions';\nexport const planted = FLAG_LABELS;\n")).length, 1);
    assert.equal((await refusedImports('src/mcp/planted.ts', "import { terminalCommand } from '../commandLine/terminalCommands';\nexport const planted = terminalCommand;\n")).length, 0);
  });

  it('keeps the engine core\'s own rules in every folder: no I/O in the pure core, protocol types only, no VS Code', async () => {
    const refused = [
      ['src/engine/text/planted.ts', "import { readFileSync } from 'node:fs';\nexport const planted = readFileSync;\n"],
      ['src/engine/session/planted.ts', "import { EventsNotification } from '../../protocol/engineProtocol';\nexport const planted = EventsNotification;\n"],
      ['src/engine/server/planted.ts', "import { window } from 'vscode';\nexport const planted = window;\n"],
    ];
    for (const [path, code] of refused) assert.equal((await refusedImports(path!, code!)).length, 1, path);
    assert.deepEqual(await refusedImports('src/engine/session/planted.ts', "import type { EventsParams } from '../../protocol/engineProtocol';\nexport type Planted = EventsParams;\n"), []);
  });

  it('lets a folder import those below it, and the server everything in the engine and the protocol', async () => {
    const downwards = [
      ['src/engine/deliver/planted.ts', "import { callAgent } from '../session/agentCall';\nexport const planted = callAgent;\n"],
      ['src/engine/run/planted.ts', "import { runMergeBatch } from '../queue/mergeQueue';\nexport const planted = runMergeBatch;\n"],
      ['src/engine/store/planted.ts', "import { isProcessAlive } from '../process/liveness';\nexport const planted = isProcessAlive;\n"],
      ['src/engine/text/planted.ts', "import type { RunState } from '../domain/runState';\nexport type Planted = RunState;\n"],
      ['src/engine/server/planted.ts', "import { TaskloomEngine } from '../run/engine';\nimport { EventsNotification } from '../../protocol/engineProtocol';\nexport const planted = [TaskloomEngine, EventsNotification];\n"],
    ];
    for (const [path, code] of downwards) assert.deepEqual(await refusedImports(path!, code!), [], path);
  });
});

describe('the engine\'s structure, drawn from its imports', () => {
  let imports: FolderImports;
  let layers: string[];
  before(async () => {
    imports = engineFolderImports(engineDir);
    layers = await engineLayers();
  });

  it('every folder of src/engine has its place in the layers', () => {
    assert.deepEqual(engineFolders(engineDir).filter((folder) => !layers.includes(folder)), []);
  });

  it('every import goes down the layers, so no folders import each other round', (t) => {
    for (const line of drawFolderImports(imports, layers)) t.diagnostic(line);
    const upwards = [...imports].flatMap(([from, counts]) =>
      [...counts.keys()].filter((to) => layers.indexOf(to) > layers.indexOf(from)).map((to) => `${from} → ${to}`),
    );
    assert.deepEqual(upwards, []);
    assert.deepEqual(foldersOnCycles(imports), []);
  });

  it('a cycle is found where there is one', () => {
    const planted: FolderImports = new Map([
      ['domain', new Map()],
      ['store', new Map([['domain', 1], ['process', 1]])],
      ['process', new Map([['gate', 1]])],
      ['gate', new Map([['store', 1], ['domain', 2]])],
      ['run', new Map([['store', 3]])],
    ]);
    assert.deepEqual(foldersOnCycles(planted), ['gate', 'process', 'store']);
  });
});
