// Lint, and the architecture as rules (docs/architecture.md › Layers): who may import whom.
//   engine core     never the editor, the webview, the CLI or the protocol (only its server speaks it)
//   pure core       engine/domain, engine/text, engine/report: no I/O, importable by every layer
//   protocol        types and message definitions only: value imports from the engine are refused
//   extension       the engine only through the protocol and the pure core (the projection folds events);
//                   command modules import no other, and only the registry and activation import them
//   webview         the protocol, the pure core and itself: no Node, no VS Code API, no extension
import tseslint from 'typescript-eslint';

const IO_ENGINE = ['**/engine/**', '!**/engine/domain', '!**/engine/domain/**', '!**/engine/text', '!**/engine/text/**', '!**/engine/report', '!**/engine/report/**'];
const restrict = (patterns, paths = []) => ['error', { paths, patterns }];
const noVscode = { name: 'vscode', message: 'Only src/extension (and its tests) may use the VS Code API.' };
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
    files: ['src/engine/**/*.ts'],
    ignores: ['src/engine/server/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        [
          { group: ['**/extension/**', '**/webview/**', '**/cli/**'], message: 'The engine core knows no shell: the extension, the webview and the CLI sit on top of it.' },
          { group: ['**/protocol/**'], allowTypeImports: true, message: 'Only the engine server speaks the protocol.' },
        ],
        [noVscode],
      ),
    },
  },
  {
    files: ['src/engine/domain/**/*.ts', 'src/engine/text/**/*.ts', 'src/engine/report/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        [
          { group: ['node:*', 'fs', 'child_process', 'simple-git', 'lowdb', 'lowdb/*'], message: 'The pure core does no I/O: it is folded in the extension host and the browser too.' },
          { group: IO_ENGINE, message: 'The pure core imports only the pure core (domain, text, report).' },
          { group: ['**/extension/**', '**/webview/**', '**/cli/**', '**/protocol/**'], message: 'The pure core knows no shell.' },
        ],
        [noVscode],
      ),
    },
  },
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
        { regex: '(^|/)commands/', message: 'Only the registry and activation import command modules: a view, a notification or the chat runs a registered command by id (runCommand.ts), which a command module handles.' },
      ]),
    },
  },
  {
    files: ['src/extension/commands/**/*.ts'],
    ignores: ['src/extension/commands/registerCommands.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict([
        ...EXTENSION_IMPORTS,
        { regex: '^\\./|(^|/)commands/', message: 'A command module imports no other: what two commands share lives outside commands/ (targets/, plans/, documents/, connection/).' },
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
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict([{ group: ['**/extension/**', '**/webview/**'], message: 'The CLI is a shell over the engine.' }], [noVscode]),
    },
  },
);
