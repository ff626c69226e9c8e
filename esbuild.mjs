// Bundles every entry point, one esbuild context per runtime:
// - node: the CLI, the engine server and the scripted agent (plain Node, CommonJS; lowdb is
//   ESM-only, so everything is bundled and nothing is resolved from node_modules at run time);
// - extension: the VS Code extension host bundle, with `vscode` external;
// - webview: the run view's browser code (IIFE), and the codicons it serves as they are;
// - vscode tests: the mocha suites that run inside a real extension host.
import { copyFileSync, mkdirSync } from 'node:fs';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

// jsonc-parser's UMD build requires its parts at run time, which a bundle cannot resolve: bundle its ESM build.
const nodeOptions = { ...common, platform: 'node', target: 'node20', format: 'cjs', alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' } };

const contexts = await Promise.all([
  esbuild.context({
    ...nodeOptions,
    entryPoints: [
      { in: 'src/cli/main.ts', out: 'cli' },
      { in: 'src/engine/agents/scripted/scriptedAgentMain.ts', out: 'scripted-agent' },
      { in: 'src/engine/server/main.ts', out: 'engine-server' },
      { in: 'src/engine/sandbox/sandboxRelayMain.ts', out: 'sandbox-relay' },
    ],
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
  }),
  esbuild.context({
    ...nodeOptions,
    entryPoints: [{ in: 'src/extension/extension.ts', out: 'extension' }],
    outdir: 'dist',
    external: ['vscode'],
  }),
  esbuild.context({
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: [{ in: 'src/webview/runView/main.ts', out: 'runView' }],
    outdir: 'dist/webview',
  }),
  esbuild.context({
    ...nodeOptions,
    sourcemap: true,
    minify: false,
    entryPoints: ['test/vscode/suite/index.ts'],
    outdir: 'dist-test/vscode',
    external: ['vscode', 'mocha'],
  }),
]);

// Served as they are: the codicons stylesheet and font, which the run view loads from dist/codicons/.
mkdirSync('dist/codicons', { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/codicons/${file}`);

if (watch) {
  await Promise.all(contexts.map((ctx) => ctx.watch()));
} else {
  await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
}
