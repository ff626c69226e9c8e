import { USER_ONLY_KEYS } from '../src/engine/domain/settingKeys';

/** Where the extension ships taskloom.json's JSON schema (package.json `jsonValidation` names it). */
export const CONFIG_FILE_SCHEMA_FILE = 'schemas/taskloom.schema.json';

interface ManifestSetting {
  scope?: string;
  markdownDescription?: string;
  [field: string]: unknown;
}

/** What a JSON schema of a setting keeps from the manifest: its type and bounds, its default and its words. */
const KEPT = ['type', 'enum', 'enumDescriptions', 'items', 'minimum', 'maximum', 'default'];

/**
 * taskloom.json's JSON schema, generated from the editor's settings (package.json
 * contributes.configuration): the same keys without "taskloom.", the same types, defaults and
 * descriptions, and a note on each key the file sets only once allowed, so completion and squiggles
 * in the editor match what Taskloom reads.
 */
export function configFileJsonSchema(properties: Record<string, ManifestSetting>, needsTrust: (key: string) => boolean): Record<string, unknown> {
  const schemaProperties: Record<string, unknown> = { $schema: { type: 'string' } };
  for (const [name, setting] of Object.entries(properties)) {
    const key = name.replace(/^taskloom\./, '');
    if ((USER_ONLY_KEYS as readonly string[]).includes(key)) continue;
    const kept = Object.fromEntries(KEPT.filter((field) => setting[field] !== undefined).map((field) => [field, setting[field]]));
    const trust = needsTrust(key) ? '\n\nStarts programs, carries a credential or loosens confinement: the CLI uses it once you allowed this file on your machine (`taskloom config allow`), the editor in a trusted workspace.' : '';
    schemaProperties[key] = { ...kept, markdownDescription: `${setting.markdownDescription ?? ''}${trust}` };
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Taskloom configuration',
    description: "Taskloom's settings for this repository: the editor's taskloom.* settings without \"taskloom.\"; flags and TASKLOOM_<KEY> variables win over it in the CLI, your own settings in the editor.",
    type: 'object',
    properties: schemaProperties,
    additionalProperties: false,
  };
}
