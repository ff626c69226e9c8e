// Bundles every entry point. The engine and the CLI run in plain Node; lowdb is ESM-only,
// so everything is bundled into CommonJS and nothing is resolved from node_modules at run time.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const nodeEntries = [
  { in: 'src/cli/main.ts', out: 'cli' },
  { in: 'src/engine/agents/scripted/scriptedAgentMain.ts', out: 'scripted-agent' },
];

const contexts = [
  await esbuild.context({
    entryPoints: nodeEntries,
    outdir: 'dist',
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
    banner: { js: '#!/usr/bin/env node' },
  }),
];

if (watch) {
  await Promise.all(contexts.map((ctx) => ctx.watch()));
} else {
  await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
}
