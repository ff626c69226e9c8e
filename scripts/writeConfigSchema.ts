// Writes taskloom.json's JSON schema, generated from package.json's contributes.configuration,
// where package.json's `jsonValidation` points. Run after changing a setting in the manifest:
//   node --import tsx scripts/writeConfigSchema.ts
// test/unit/configFileSchema.test.ts fails while the shipped file differs from the generated one.
import { readFileSync, writeFileSync } from 'node:fs';
import { needsTrust, type ProjectSettingKey } from '../src/engine/domain/settingKeys';
import { CONFIG_FILE_SCHEMA_FILE, configFileJsonSchema } from './configFileSchema';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, Record<string, unknown>> } } };
const schema = configFileJsonSchema(manifest.contributes.configuration.properties, (key) => needsTrust(key as ProjectSettingKey));
writeFileSync(CONFIG_FILE_SCHEMA_FILE, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${CONFIG_FILE_SCHEMA_FILE}`);
