import type { RunSettings, SettingName } from './runSettings';
import { RUN_SETTING_KEYS, type ProjectSettingKey } from './settingKeys';

/**
 * Where a setting's value came from. The CLI layers flags over the environment over taskloom.json
 * over the defaults; the editor its own settings (user or workspace) over taskloom.json over the defaults;
 * the MCP server a tool's input over the environment over taskloom.json over the defaults.
 */
export type SettingSource = 'flag' | 'tool' | 'environment' | 'file' | 'setting' | 'default';

/** Values by their taskloom.json key, each as a person wrote it (checked when the run's config is made). */
export type ProjectValues = Partial<Record<ProjectSettingKey, unknown>>;

export interface SettingLayer {
  source: SettingSource;
  values: ProjectValues;
}

export interface LayeredSettings {
  values: ProjectValues;
  /** The layer each set value came from; a key not here has its default. */
  sources: Partial<Record<ProjectSettingKey, SettingSource>>;
}

/** The first layer that sets a key wins it. */
export function layerSettings(layers: readonly SettingLayer[]): LayeredSettings {
  const values: ProjectValues = {};
  const sources: LayeredSettings['sources'] = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer.values) as [ProjectSettingKey, unknown][]) {
      if (value === undefined || key in values) continue;
      values[key] = value;
      sources[key] = layer.source;
    }
  }
  return { values, sources };
}

/** The run settings among the values, nested as RunSettings holds them (`roles.actor.agent` → roles.actor.agent). */
export function runSettingsOf(values: ProjectValues): RunSettings {
  const settings: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(RUN_SETTING_KEYS) as [SettingName, ProjectSettingKey][]) {
    if (values[key] === undefined) continue;
    const parts = name.split('.');
    let node = settings;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = values[key];
  }
  return settings as RunSettings;
}

/** RunSettings by their taskloom.json keys: the editor's settings as one layer (runSettingsOf backwards). */
export function projectValuesOf(settings: RunSettings): ProjectValues {
  const values: ProjectValues = {};
  for (const [name, key] of Object.entries(RUN_SETTING_KEYS) as [SettingName, ProjectSettingKey][]) {
    const value = name.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), settings);
    if (value !== undefined) values[key] = value;
  }
  return values;
}
