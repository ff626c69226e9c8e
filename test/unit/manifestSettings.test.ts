import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WATCH_ESCALATE_AFTER_MINUTES, WATCH_INTERVAL_SECONDS } from '../../src/engine/deliver/watchPullRequests';
import { RUN_SETTING_DEFAULTS, type SettingName } from '../../src/engine/domain/runSettings';
import { EDITOR_SETTING_KEYS } from '../../src/protocol/runSettings';

const manifest = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default?: unknown; scope?: string }> } };
};
const declared = manifest.contributes.configuration.properties;

/** Settings only the editor has, with the default the code that reads them assumes. */
const EDITOR_ONLY_DEFAULTS: Record<string, unknown> = {
  'taskloom.autopilot': false,
  'taskloom.apply.history': 'merge',
  'taskloom.github.apiUrl': '',
  'taskloom.pullRequests.keepGreen': true,
  'taskloom.pullRequests.pollSeconds': WATCH_INTERVAL_SECONDS,
  'taskloom.pullRequests.trustedBots': [],
  'taskloom.pullRequests.escalateAfterMinutes': WATCH_ESCALATE_AFTER_MINUTES,
  'taskloom.pullRequests.autoMerge': false,
  'taskloom.notify': [],
};

const UNSET_VALUES = ['', null];

describe('the manifest declares the engine\'s defaults', () => {
  it('every run setting the editor reads is declared, with the engine\'s default or an unset value', () => {
    for (const [field, key] of Object.entries(EDITOR_SETTING_KEYS) as [SettingName, string][]) {
      assert.ok(declared[key], `${key} is not in package.json contributes.configuration`);
      const engineDefault = (RUN_SETTING_DEFAULTS as Partial<Record<SettingName, unknown>>)[field];
      const manifestDefault = declared[key].default;
      if (engineDefault !== undefined) assert.deepEqual(manifestDefault, engineDefault, key);
      else assert.ok(UNSET_VALUES.includes(manifestDefault as never) || (Array.isArray(manifestDefault) && manifestDefault.length === 0), `${key} declares ${JSON.stringify(manifestDefault)}, but the engine has no default for it`);
    }
  });

  it('the editor-only settings declare what their readers assume', () => {
    for (const [key, value] of Object.entries(EDITOR_ONLY_DEFAULTS)) assert.deepEqual(declared[key]?.default, value, key);
  });

  it('no setting is declared that nothing reads', () => {
    const read = new Set([...Object.values(EDITOR_SETTING_KEYS), ...Object.keys(EDITOR_ONLY_DEFAULTS)]);
    assert.deepEqual(Object.keys(declared).filter((key) => !read.has(key)), []);
  });
});

/**
 * Settings a repository's own .vscode/settings.json must not set (docs/settings.md, "Who may set a
 * setting"): where a credential is sent (application), and programs, command lines, places outside
 * the repository and guards on agents (machine). VS Code ignores workspace values of both scopes.
 */
const CREDENTIAL_ENDPOINTS = ['taskloom.github.apiUrl', 'taskloom.notify'];
const PROGRAMS_PLACES_GUARDS = [
  'taskloom.claude.path',
  'taskloom.codex.path',
  'taskloom.command.argv',
  'taskloom.worktree.setup',
  'taskloom.actor.allowedCommands',
  'taskloom.worktree.root',
  'taskloom.sensitivePaths',
  'taskloom.sandbox.mode',
  'taskloom.sandbox.allowedHosts',
  'taskloom.sandbox.setupHosts',
  'taskloom.sandbox.gateHosts',
  'taskloom.sandbox.env',
  'taskloom.sandbox.hiddenPaths',
  'taskloom.sandbox.readPaths',
  'taskloom.sandbox.agentsSeeIncludedFiles',
  'taskloom.pullRequests.trustedBots',
  'taskloom.pullRequests.autoMerge',
];
const SCOPES = ['application', 'machine', 'machine-overridable', 'window', 'resource', 'language-overridable'];

describe('who may set each setting', () => {
  it('an endpoint that receives a token is application-scoped: only the user sets it', () => {
    for (const key of CREDENTIAL_ENDPOINTS) assert.equal(declared[key]?.scope, 'application', key);
  });

  it('programs, command lines, places outside the repository and guards on agents are machine-scoped', () => {
    for (const key of PROGRAMS_PLACES_GUARDS) assert.equal(declared[key]?.scope, 'machine', key);
  });

  it('every setting says its scope, and only the listed ones keep it from a workspace', () => {
    const kept = new Set([...CREDENTIAL_ENDPOINTS, ...PROGRAMS_PLACES_GUARDS]);
    for (const [key, setting] of Object.entries(declared)) {
      assert.ok(setting.scope && SCOPES.includes(setting.scope), `${key} declares no scope (or an unknown one): ${setting.scope}`);
      if (!kept.has(key)) assert.ok(!['application', 'machine'].includes(setting.scope), `${key} is ${setting.scope} but not listed here or in docs/settings.md`);
    }
  });

  it('docs/settings.md gives every setting its manifest scope and a reason', () => {
    const doc = readFileSync(join(__dirname, '../../docs/settings.md'), 'utf8');
    const rows = new Map([...doc.matchAll(/^\| `(taskloom\.[\w.]+)` \| (application|machine|machine-overridable|window|resource|language-overridable) \| (.+) \|$/gm)].map((m) => [m[1]!, m[2]!]));
    assert.deepEqual([...rows.keys()].sort(), Object.keys(declared).sort());
    for (const [key, scope] of rows) assert.equal(scope, declared[key]!.scope, key);
  });

  it('the extension never reads a workspace value past its scope (inspect().workspaceValue)', () => {
    const dir = join(__dirname, '../../src/extension');
    // settings.ts asks inspect() only whether the value get() gives was set by the user (so it wins over taskloom.json), never for a value.
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && f !== 'settings.ts');
    assert.ok(files.length > 0);
    for (const file of files) assert.doesNotMatch(readFileSync(join(dir, file), 'utf8'), /workspace(Folder)?Value|\.inspect\s*[<(]/, file);
    const settings = readFileSync(join(dir, 'settings.ts'), 'utf8');
    assert.equal([...settings.matchAll(/\.inspect\s*[<(]/g)].length, 1, 'settings.ts calls inspect() in isSetByUser alone');
    assert.match(settings, /isDeepStrictEqual\(v, value\)/, 'a level counts as set only when it holds the value get() gives');
  });
});

describe('the walkthrough', () => {
  it('has a subtitle short enough to read whole: VS Code clamps it to three lines, about 25 characters each in a narrow editor', () => {
    const { walkthroughs } = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { contributes: { walkthroughs: Array<{ description: string }> } }).contributes;
    for (const w of walkthroughs) assert.ok(w.description.length <= 75, `${w.description.length} characters: "${w.description}"`);
  });
});
