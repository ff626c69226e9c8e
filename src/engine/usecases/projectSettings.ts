import { layerSettings, type LayeredSettings, type SettingLayer } from '../domain/settingLayers';
import type { ProjectSettingKey } from '../domain/settingKeys';
import { TaskloomError } from '../domain/taskloomError';
import { isConfigFileAllowed, recordAllowedConfigFile } from '../run/configFile/allowedConfigFiles';
import { CONFIG_FILE_NAME, readConfigFile } from '../run/configFile/readConfigFile';

export interface WithheldSetting {
  key: ProjectSettingKey;
  value: unknown;
}

export interface ProjectSettingsParams {
  repoRoot: string;
  /** What the door's own layers set, first wins: the CLI's flags then environment; the editor's settings. */
  above: SettingLayer[];
  /**
   * Who may let taskloom.json start programs: the editor's Workspace Trust, or (the CLI) the
   * user's allowing of this very file, recorded on this machine (allowConfigFile).
   */
  trust: { workspaceTrusted: boolean } | 'allowed-on-this-machine';
  /** The keys the door reads for what it does now: only those are withheld (and asked about); default all. */
  reads?: readonly ProjectSettingKey[];
}

export interface ProjectSettings extends LayeredSettings {
  /** The taskloom.json read, when the repository has one. */
  file?: string;
  /**
   * Keys of the file that start programs, carry credentials or widen confinement, which it would
   * set and may not (not allowed here, or an untrusted workspace): left out of `values`. The door
   * says so: the CLI asks or refuses, the editor warns. Empty when nothing is withheld.
   */
  withheld: WithheldSetting[];
}

/**
 * The settings a door runs with: its own layers over the repository's taskloom.json over the
 * defaults. A key of the file that needs trust is used only where the door's trust rule allows
 * it, and only counts when the file's value would win. A bad file throws ConfigFileError.
 */
export function resolveProjectSettings(params: ProjectSettingsParams): ProjectSettings {
  const file = readConfigFile(params.repoRoot);
  if (!file) return { ...layerSettings(params.above), withheld: [] };
  const setAbove = (key: ProjectSettingKey) => params.above.some((layer) => layer.values[key] !== undefined);
  const trusted = params.trust === 'allowed-on-this-machine' ? isConfigFileAllowed(params.repoRoot, file) : params.trust.workspaceTrusted;
  const read = (key: ProjectSettingKey) => params.reads?.includes(key) ?? true;
  const withheld = trusted ? [] : file.needingTrust.filter((key) => read(key) && !setAbove(key)).map((key) => ({ key, value: file.values[key] }));
  const usable = Object.fromEntries(Object.entries(file.values).filter(([key]) => !withheld.some((w) => w.key === key)));
  return { ...layerSettings([...params.above, { source: 'file', values: usable }]), file: file.path, withheld };
}

/** The keys of taskloom.json that would be used were they allowed, for the door to show, ask about, or refuse with. */
export class ConfigNotAllowedError extends TaskloomError {
  override readonly name = 'ConfigNotAllowedError';
  constructor(
    readonly file: string,
    readonly withheld: WithheldSetting[],
  ) {
    super(
      'bad_input',
      `${file} sets ${withheld.map((w) => `"${w.key}"`).join(', ')}, which would start programs or loosen confinement, and it was not allowed on this machine`,
      'Check what it sets; allow it once if you trust this repository (it is asked again when one of those values changes), or set them yourself by flag or environment.',
      { code: 'config_not_allowed', next: [{ kind: 'allowConfigFile' }] },
    );
  }
}

export class NoConfigFileError extends TaskloomError {
  override readonly name = 'NoConfigFileError';
  constructor(repoRoot: string) {
    super('bad_input', `There is no ${CONFIG_FILE_NAME} in ${repoRoot}`, 'Nothing to allow: write one at the repository\'s root first.', { code: 'no_config_file' });
  }
}

/**
 * The user allows the repository's taskloom.json as it is now on this machine: its keys that start
 * programs are used from then on until one of their values changes. Answers what was allowed.
 */
export function allowConfigFile(repoRoot: string): { file: string; allowed: WithheldSetting[] } {
  const file = readConfigFile(repoRoot);
  if (!file) throw new NoConfigFileError(repoRoot);
  try {
    recordAllowedConfigFile(repoRoot, file);
  } catch (error) {
    throw new TaskloomError('storage', `Could not record that ${file.path} is allowed (${(error as Error).message})`, 'Free space or fix the permissions of Taskloom\'s state folder (TASKLOOM_STATE_DIR), then allow it again.');
  }
  return { file: file.path, allowed: file.needingTrust.map((key) => ({ key, value: file.values[key] })) };
}
