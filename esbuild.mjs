// Bundles every entry point, one esbuild context per runtime:
// - node: the CLI, the engine server and the scripted agent (plain Node, CommonJS; lowdb is
//   ESM-only, so everything is bundled and nothing is resolved from node_modules at run time);
// - extension: the VS Code extension host bundle, with `vscode` external;
// - webview: the run view's and the Insights page's browser code (IIFE), and the codicons they serve as they are;
// - vscode tests: the mocha suites that run inside a real extension host.
// Prints the size of what ships (every bundle but the tests'); a production build over
// SHIPPED_LIMIT_BYTES fails, since the three Node bundles are read at every start.
//
//   node esbuild.mjs [--production] [--watch] [--out DIR]   (DIR: where dist/ and dist-test/ go; default .)
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const outIndex = process.argv.indexOf('--out');
const outRoot = outIndex >= 0 ? process.argv[outIndex + 1] : '.';
const dist = join(outRoot, 'dist');
// 3.2 MB since the MCP front door (its SDK, trimmed below, is ~80 KB of the CLI). The engine is in
// both the CLI and the engine server bundle: one Node bundle serving both would halve it, the
// lever to pull before this limit moves again.
const SHIPPED_LIMIT_BYTES = 3_200_000;

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  metafile: true,
};

// What the MCP SDK imports for what Taskloom's server never does (~210 KB minified, which would break
// the bundle limit): zod 3 and its JSON Schema converter, for tools whose schemas are zod 3 (ours are
// zod 4, which converts itself), and ajv, which validates only the answers to an elicitation (the
// server asks none). Each is replaced, inside the SDK only, by a stub that says so if ever reached.
const MCP_SDK_UNUSED = {
  'zod/v3': 'export {};',
  'zod-to-json-schema': "export function zodToJsonSchema() { throw new Error('Taskloom bundles no zod 3 support: its MCP tools take zod 4 schemas'); }",
  '../validation/ajv-provider.js':
    "export class AjvJsonSchemaValidator { getValidator() { throw new Error('Taskloom bundles no JSON Schema validator: its MCP server asks no elicitation'); } }",
};
const mcpSdkTrim = {
  name: 'mcp-sdk-trim',
  setup(build) {
    build.onResolve({ filter: /^(zod\/v3|zod-to-json-schema|\.\.\/validation\/ajv-provider\.js)$/ }, ({ path, importer }) =>
      importer.includes('@modelcontextprotocol/sdk') ? { path, namespace: 'mcp-sdk-unused' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'mcp-sdk-unused' }, ({ path }) => ({ contents: MCP_SDK_UNUSED[path], loader: 'js' }));
  },
};

// jsonc-parser's UMD build requires its parts at run time, which a bundle cannot resolve: bundle its ESM build.
const nodeOptions = { ...common, platform: 'node', target: 'node20', format: 'cjs', alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' }, plugins: [mcpSdkTrim] };

const contexts = await Promise.all([
  esbuild.context({
    ...nodeOptions,
    entryPoints: [
      { in: 'src/cli/main.ts', out: 'cli' },
      { in: 'src/engine/agents/scripted/scriptedAgentMain.ts', out: 'scripted-agent' },
      { in: 'src/engine/server/main.ts', out: 'engine-server' },
      { in: 'src/engine/sandbox/sandboxRelayMain.ts', out: 'sandbox-relay' },
    ],
    outdir: dist,
    banner: { js: '#!/usr/bin/env node' },
  }),
  esbuild.context({
    ...nodeOptions,
    entryPoints: [{ in: 'src/extension/extension.ts', out: 'extension' }],
    outdir: dist,
    external: ['vscode'],
  }),
  esbuild.context({
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: [
      { in: 'src/webview/runView/main.ts', out: 'runView' },
      { in: 'src/webview/insights/main.ts', out: 'insights' },
    ],
    outdir: join(dist, 'webview'),
  }),
  esbuild.context({
    ...nodeOptions,
    sourcemap: true,
    minify: false,
    entryPoints: ['test/vscode/suite/index.ts'],
    outdir: join(outRoot, 'dist-test', 'vscode'),
    external: ['vscode', 'mocha'],
  }),
]);

// Served as they are: the codicons stylesheet and font, which the run view loads from dist/codicons/.
mkdirSync(join(dist, 'codicons'), { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, join(dist, 'codicons', file));

if (watch) {
  await Promise.all(contexts.map((ctx) => ctx.watch()));
} else {
  const results = await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  // The last context is the test suite's, which does not ship.
  const shipped = results.slice(0, -1).flatMap((r) => Object.entries(r.metafile.outputs)).filter(([file]) => file.endsWith('.js'));
  const total = shipped.reduce((sum, [, output]) => sum + output.bytes, 0);
  const kb = (bytes) => `${Math.round(bytes / 1000)} KB`;
  const parts = shipped.map(([file, output]) => `${file.split('/').pop()} ${kb(output.bytes)}`).join(', ');
  console.log(`taskloom bundles${production ? '' : ' (development, unminified)'}: ${kb(total)} in all (${parts})`);
  if (production && total > SHIPPED_LIMIT_BYTES) {
    console.error(`The production bundles total ${kb(total)}, over the ${kb(SHIPPED_LIMIT_BYTES)} limit: look for a dependency bundled in full (esbuild's metafile names each input's bytes).`);
    process.exit(1);
  }
}
