import type { SettingName } from '../engine/domain/runSettings';
import type { LayeredSettings, ProjectValues } from '../engine/domain/settingLayers';
import { environmentName, RUN_SETTING_KEYS, type ProjectSettingKey } from '../engine/domain/settingKeys';
import { environmentSettings } from '../engine/run/configFile/environmentSettings';
import { CONFIG_FILE_NAME } from '../engine/run/configFile/readConfigFile';
import { allowConfigFile, ConfigNotAllowedError, NoConfigFileError, resolveProjectSettings, type ProjectSettings } from '../engine/usecases/projectSettings';
import { askYesNo } from './askYesNo';
import { yellow } from './format';
import { FLAG_LABELS } from './runOptions';

/** `--allow-config`: allow the repository's taskloom.json as it is now (CI), as `taskloom config allow` does. */
export const ALLOW_CONFIG_OPTION = { 'allow-config': { type: 'boolean' } } as const;

/**
 * A command's settings: its flags over the environment (`TASKLOOM_<KEY>`) over the repository's
 * taskloom.json over the defaults. When the file would set what starts programs and was not
 * allowed on this machine, `onWithheld: 'ask'` shows exactly what and asks in a terminal (no
 * terminal: ConfigNotAllowedError, exit 2); undefined when the user says no. `'report'` (the
 * doctor) leaves them out and answers them in `withheld`.
 */
export async function commandSettings(
  repoRoot: string,
  flags: ProjectValues,
  how: { allowConfig: boolean; onWithheld: 'ask' | 'report'; reads?: readonly ProjectSettingKey[] },
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProjectSettings | undefined> {
  if (how.allowConfig) allowIfThere(repoRoot);
  const resolve = () => resolveProjectSettings({ repoRoot, above: [{ source: 'flag', values: flags }, { source: 'environment', values: environmentSettings(env) }], trust: 'allowed-on-this-machine', ...(how.reads ? { reads: how.reads } : {}) });
  let resolved = resolve();
  if (resolved.withheld.length && how.onWithheld === 'ask') {
    const refused = new ConfigNotAllowedError(resolved.file!, resolved.withheld);
    if (!process.stdin.isTTY) throw refused;
    process.stdout.write(`${yellow(`${resolved.file} sets what Taskloom would run or let through for this repository:`)}\n${resolved.withheld.map((w) => `  "${w.key}": ${JSON.stringify(w.value)}\n`).join('')}`);
    if (!(await askYesNo(`Allow ${CONFIG_FILE_NAME} to set these on this machine (asked again when they change)?`, { message: refused.message, hint: refused.hint ?? '' }))) {
      process.stdout.write(`Not allowed; nothing was run. Set them yourself by flag or environment, or remove them from ${CONFIG_FILE_NAME}.\n`);
      return undefined;
    }
    allowConfigFile(repoRoot);
    resolved = resolve();
  }
  return resolved;
}

/** The flags a command was given: one not given sets nothing, so the layers below it show through. */
export const definedOnly = (values: ProjectValues): ProjectValues => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));

function allowIfThere(repoRoot: string): void {
  try {
    allowConfigFile(repoRoot);
  } catch (error) {
    // CI may pass --allow-config to every command in every repository, with a file or without.
    if (!(error instanceof NoConfigFileError)) throw error;
  }
}

/** How messages name each run setting: by where its value came from (a flag, a variable, a key of taskloom.json). */
export function settingLabels(sources: LayeredSettings['sources']): Record<SettingName, string> {
  const labels = { ...FLAG_LABELS };
  for (const [name, key] of Object.entries(RUN_SETTING_KEYS) as [SettingName, (typeof RUN_SETTING_KEYS)[SettingName]][]) {
    const source = sources[key];
    if (source === 'environment') labels[name] = environmentName(key);
    else if (source === 'file') labels[name] = `"${key}" in ${CONFIG_FILE_NAME}`;
  }
  return labels;
}
