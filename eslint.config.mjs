// Lint, and the architecture as rules (docs/architecture.md › Layers): who may import whom.
//   engine          its folders in layers, bottom to top (ENGINE_LAYERS): each imports only the folders below it
//   engine core     never the editor, the webview or the CLI; the protocol's types only (its server speaks it)
//   pure core       engine/domain, engine/text, engine/report: no I/O, importable by every layer
//   protocol        types and message definitions only: value imports from the engine are refused
//   extension       the engine only through the protocol and the pure core (the projection folds events);
//                   command modules import no other, and only the registry and activation import them
//   webview         the protocol, the pure core and itself: no Node, no VS Code API, no extension
//   CLI             the engine; not the engine server (a front door beside it), the editor or the webview
//   MCP             the engine; not the engine server or the CLI (front doors beside it), the editor or the webview
//   commandLine     the command lines the CLI and the MCP server hand a user: the pure core only
import tseslint from 'typescript-eslint';

/**
 * The engine's folders, bottom to top: each may import only the folders before it, so no import
 * goes up and the engine has no cycle. docs/architecture.md › Layers says what each one is;
 * test/unit/engineLayers.test.ts fails on a folder of src/engine missing here.
 */
export const ENGINE_LAYERS = [
  'domain', 'text', 'report', 'plan', 'schedule', 'io', 'process', 'store', 'forge', 'loop', 'sandbox', 'agents',
  'gate', 'workspace', 'session', 'queue', 'notify', 'deliver', 'doctor', 'demo', 'run', 'usecases', 'server',
];
const PURE_CORE = ['domain', 'text', 'report'];

const IO_ENGINE = ['**/engine/**', '!**/engine/domain', '!**/engine/domain/**', '!**/engine/text', '!**/engine/text/**', '!**/engine/report', '!**/engine/report/**'];
const restrict = (patterns, paths = []) => ['error', { paths, patterns }];
const noVscode = { name: 'vscode', message: 'Only src/extension (and its tests) may use the VS Code API.' };
const noShell = { group: ['**/extension/**', '**/webview/**', '**/cli/**'], message: 'The engine knows no shell: the extension, the webview and the CLI sit on top of it.' };
const protocolTypesOnly = { group: ['**/protocol/**'], allowTypeImports: true, message: 'Only the engine server speaks the protocol.' };
const noProtocolInPureCore = { group: ['**/protocol/**'], message: 'The pure core knows no shell, nor the protocol.' };
const noIoInPureCore = { group: ['node:*', 'fs', 'child_process', 'simple-git', 'lowdb', 'lowdb/*'], message: 'The pure core does no I/O: it is folded in the extension host and the browser too.' };

/** An import of one of `folders` of the engine from inside it (`../run/engine`, `../../gate/runGate`). */
const engineFolderImport = (folders) => `^(\\.\\./)+(engine/)?(${folders.join('|')})(/|$)`;

/** The import rule of one engine folder: what every engine folder is refused, and every folder above it. */
function engineLayerRule(folder, index) {
  const above = ENGINE_LAYERS.slice(index + 1);
  const below = ENGINE_LAYERS.slice(0, index);
  const pure = PURE_CORE.includes(folder);
  const patterns = [noShell, ...(pure ? [noIoInPureCore, noProtocolInPureCore] : folder === 'server' ? [] : [protocolTypesOnly])];
  if (above.length > 0) {
    patterns.push({
      regex: engineFolderImport(above),
      caseSensitive: true,
      message: below.length
        ? `engine/${folder} imports only the folders below it (${below.join(', ')}); docs/architecture.md › Layers.`
        : `engine/${folder} is the bottom layer: it imports no other engine folder; docs/architecture.md › Layers.`,
    });
  }
  return { files: [`src/engine/${folder}/**/*.ts`], rules: { '@typescript-eslint/no-restricted-imports': restrict(patterns, [noVscode]) } };
}
const EXTENSION_IMPORTS = [
  { group: IO_ENGINE, message: 'The extension reaches the engine through the protocol (src/protocol); only the pure core (domain, text, report) is imported directly.' },
  { group: ['**/webview/**', '**/cli/**'], message: 'The extension does not import the webview or the CLI.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'node_modules/**', 'test-artifacts/**', 'media/**', '**/*.mjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Sanitisers match control characters on purpose (src/engine/text/terminalText.ts).
      'no-control-regex': 'off',
      'prefer-const': ['error', { destructuring: 'all' }],
    },
  },
  {
    // Tests and their fakes parse arbitrary JSON from the processes they drive; mocha suites load by require.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // vscode-languageserver's convention: each request or notification is a namespace holding its method and type.
    files: ['src/protocol/**/*.ts'],
    rules: { '@typescript-eslint/no-namespace': 'off' },
  },
  {
    // A folder not (yet) in ENGINE_LAYERS still keeps to the engine core's rule.
    files: ['src/engine/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict([noShell, protocolTypesOnly], [noVscode]) },
  },
  ...ENGINE_LAYERS.map(engineLayerRule),
  {
    files: ['src/protocol/**/*.ts'],
    rules: {
      // The core rule sees `import type` too: not even the types of the engine's internals.
      'no-restricted-imports': restrict([{ group: IO_ENGINE, message: 'The protocol speaks in the pure core\'s types, not the engine\'s internals.' }]),
      '@typescript-eslint/no-restricted-imports': restrict(
        [
          { group: ['**/engine/**'], allowTypeImports: true, message: 'The protocol holds types and message definitions only: import engine types with `import type`.' },
          { group: ['**/extension/**', '**/webview/**', '**/cli/**'], message: 'The protocol is below every shell.' },
        ],
        [noVscode],
      ),
    },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(EXTENSION_IMPORTS) },
  },
  {
    // Activation and the registry gather the command modules; everything else hands a command its intent by id.
    files: ['src/extension/**/*.ts'],
    ignores: ['src/extension/commands/**', 'src/extension/extension.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict([
        ...EXTENSION_IMPORTS,
        { regex: '(^|/)commands/', caseSensitive: true, message: 'Only the registry and activation import command modules: a view, a notification or the chat runs a registered command by id (runCommand.ts), which a command module handles.' },
      ]),
    },
  },
  {
    files: ['src/extension/commands/**/*.ts'],
    ignores: ['src/extension/commands/registerCommands.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict([
        ...EXTENSION_IMPORTS,
        { regex: '^\\./|(^|/)commands/', caseSensitive: true, message: 'A command module imports no other: what two commands share lives outside commands/ (targets/, plans/, documents/, connection/).' },
      ]),
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        [
          { group: IO_ENGINE, message: 'The webview sees the protocol, the pure core and itself.' },
          { group: ['**/extension/**', '**/cli/**', 'node:*'], message: 'The webview runs in a browser: no Node, no extension code.' },
        ],
        [noVscode],
      ),
      // Agent text reaches the view: it only ever goes into text nodes (src/webview/runView/dom.ts), never parsed as HTML or code.
      'no-restricted-properties': [
        'error',
        ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'createContextualFragment', 'write', 'writeln'].map((property) => ({ property, message: 'Build elements with dom.ts; text goes in text nodes.' })),
      ],
      'no-restricted-globals': ['error', { name: 'DOMParser', message: 'Never parse strings as HTML.' }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='setAttribute'][arguments.0.value='style']", message: 'No inline styles by attribute (the CSP forbids them): use classes.' }],
      'no-eval': 'error',
      'no-new-func': 'error',
      'no-implied-eval': 'error',
    },
  },
  {
    // The command lines the terminal doors (the CLI, the MCP server) hand a user: words over the pure core, below both doors.
    files: ['src/commandLine/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        [{ group: [...IO_ENGINE, '**/extension/**', '**/webview/**', '**/cli/**', '**/mcp/**', 'node:*'], message: 'src/commandLine holds words over the pure core only: every terminal door imports it.' }],
        [noVscode],
      ),
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        [
          { group: ['**/extension/**', '**/webview/**'], message: 'The MCP server is a front door over the engine.' },
          { group: ['**/cli/**'], message: 'The MCP server is a front door beside the CLI, not on top of it: what both need lives in the engine (a use case, or its words in engine/text).' },
          { group: ['**/engine/server', '**/engine/server/**'], message: 'The MCP server and the engine server are two front doors over the engine: neither imports the other.' },
        ],
        [noVscode],
      ),
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        [
          { group: ['**/extension/**', '**/webview/**'], message: 'The CLI is a shell over the engine.' },
          { group: ['**/engine/server', '**/engine/server/**'], message: 'The CLI and the engine server are two front doors over the engine: neither imports the other.' },
        ],
        [noVscode],
      ),
    },
  },
);
