import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WATCH_INTERVAL_SECONDS } from '../../src/engine/deliver/watchPullRequests';
import { RUN_SETTING_DEFAULTS, type SettingName } from '../../src/engine/domain/runSettings';
import { EDITOR_SETTING_KEYS } from '../../src/protocol/runSettings';

const manifest = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
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

describe('the walkthrough', () => {
  it('has a subtitle short enough to read whole: VS Code clamps it to three lines, about 25 characters each in a narrow editor', () => {
    const { walkthroughs } = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { contributes: { walkthroughs: Array<{ description: string }> } }).contributes;
    for (const w of walkthroughs) assert.ok(w.description.length <= 75, `${w.description.length} characters: "${w.description}"`);
  });
});
