import type { SettingSource } from '../domain/settingLayers';
import type { ProjectSettingKey } from '../domain/settingKeys';
import { PROJECT_SETTING_KEYS } from '../domain/settingKeys';
import { counted } from './counted';

const SOURCE_WORDS: Record<SettingSource, string> = {
  flag: 'flag',
  tool: 'MCP tool input',
  environment: 'environment',
  file: 'taskloom.json',
  setting: 'setting',
  default: 'default',
};

/**
 * Where each value the user set came from, one line each (`maxParallel = 4 (taskloom.json)`), then
 * one line for the keys left at their defaults: the doctor's answer to "why does it use that?".
 */
export function settingSourceLines(values: Partial<Record<ProjectSettingKey, unknown>>, sources: Partial<Record<ProjectSettingKey, SettingSource>>): string[] {
  const set = PROJECT_SETTING_KEYS.filter((key) => sources[key] !== undefined && sources[key] !== 'default');
  const lines = set.map((key) => `${key} = ${JSON.stringify(values[key])} (${SOURCE_WORDS[sources[key]!]})`);
  const rest = PROJECT_SETTING_KEYS.length - set.length;
  if (rest > 0) lines.push(`${set.length ? 'the other ' : 'all '}${counted(rest, 'setting')}: ${SOURCE_WORDS.default}`);
  return lines;
}

/** The keys of taskloom.json left out, and why, for the doctor and the editor's warning. */
export function withheldWords(file: string, keys: readonly ProjectSettingKey[], why: 'not_allowed' | 'workspace_untrusted'): string {
  const named = keys.map((k) => `"${k}"`).join(', ');
  return why === 'workspace_untrusted'
    ? `${file} sets ${named}, which start programs or loosen confinement: ignored, as this workspace is not trusted (trust it to use them)`
    : `${file} sets ${named}, which start programs or loosen confinement, and was not allowed on this machine: check them, then allow the file`;
}
