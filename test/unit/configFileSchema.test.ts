import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CONFIG_FILE_SCHEMA_FILE, configFileJsonSchema } from '../../scripts/configFileSchema';
import { needsTrust, PROJECT_SETTING_KEYS, RUN_SETTING_KEYS, USER_ONLY_KEYS, type ProjectSettingKey } from '../../src/engine/domain/settingKeys';
import { CONFIG_FILE_RULES } from '../../src/engine/run/configFile/configFileSchema';
import { EDITOR_SETTING_KEYS } from '../../src/protocol/runSettings';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Record<string, unknown>> }; jsonValidation: Array<{ fileMatch: string; url: string }> };
};
const declared = manifest.contributes.configuration.properties;
/** The editor's settings taskloom.json holds: all but the user's own (USER_ONLY_KEYS). */
const inFile = Object.fromEntries(Object.entries(declared).filter(([name]) => !(USER_ONLY_KEYS as readonly string[]).includes(name.replace(/^taskloom\./, ''))));
const shipped = JSON.parse(readFileSync(join(root, CONFIG_FILE_SCHEMA_FILE), 'utf8')) as { properties: Record<string, Record<string, unknown>> };

describe('taskloom.json has the editor\'s settings as its keys', () => {
  test('the shipped JSON schema is the one generated from the manifest', () => {
    assert.deepEqual(shipped, configFileJsonSchema(declared, (key) => needsTrust(key as ProjectSettingKey)), `${CONFIG_FILE_SCHEMA_FILE} is out of date: run node --import tsx scripts/writeConfigSchema.ts`);
  });

  test('VS Code validates taskloom.json with it', () => {
    assert.ok(manifest.contributes.jsonValidation.some((v) => v.fileMatch === 'taskloom.json' && v.url === `./${CONFIG_FILE_SCHEMA_FILE}`));
  });

  test('every editor setting but the user-only ones is a key Taskloom reads from the file, and no other', () => {
    assert.ok(!('notify' in shipped.properties), 'where word of runs goes is never a committed file\'s to say');
    assert.deepEqual([...PROJECT_SETTING_KEYS].sort(), Object.keys(inFile).map((k) => k.replace(/^taskloom\./, '')).sort());
    for (const [name, key] of Object.entries(RUN_SETTING_KEYS)) assert.equal(EDITOR_SETTING_KEYS[name as keyof typeof EDITOR_SETTING_KEYS], `taskloom.${key}`, name);
  });

  test('the file\'s checks take each setting\'s default and refuse a value of another type', () => {
    for (const [name, setting] of Object.entries(inFile)) {
      const key = name.replace(/^taskloom\./, '') as ProjectSettingKey;
      const { schema } = CONFIG_FILE_RULES[key];
      assert.ok(schema.safeParse(setting.default).success, `${key} refuses its default ${JSON.stringify(setting.default)}`);
      const wrong = [setting.type].flat().includes('string') ? 42 : 'text';
      assert.ok(!schema.safeParse(wrong).success, `${key} takes ${JSON.stringify(wrong)}`);
      if (typeof setting.minimum === 'number' && [setting.type].flat().includes('integer')) assert.ok(!schema.safeParse(setting.minimum - 1).success, `${key} takes less than its minimum`);
    }
  });

  test('every key a repository must not set in .vscode/settings.json needs allowing in taskloom.json too', () => {
    for (const [name, setting] of Object.entries(inFile)) {
      const key = name.replace(/^taskloom\./, '') as ProjectSettingKey;
      if (setting.scope === 'machine' || setting.scope === 'application') assert.ok(needsTrust(key), `${key} is ${setting.scope}-scoped in the editor but safe in taskloom.json`);
    }
    for (const key of ['gate.commands', 'worktree.setup', 'command.argv', 'claude.path', 'sandbox.env', 'github.apiUrl'] as const) assert.ok(needsTrust(key), key);
  });
});
