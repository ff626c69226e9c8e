import type { RunSettings } from '../domain/runSettings';
import { projectValuesOf, runSettingsOf } from '../domain/settingLayers';
import { RUN_START_KEYS } from '../domain/settingKeys';
import { withheldWords } from '../text/settingSourceWords';
import { resolveProjectSettings, type ProjectSettings } from '../usecases/projectSettings';

export interface EditorRunSettings {
  /** What the run is made from: the editor's settings over taskloom.json over the defaults. */
  settings: RunSettings;
  layered: ProjectSettings;
  /** Said to the user when taskloom.json's keys that start programs were left out (an untrusted workspace). */
  warning?: string;
}

/**
 * The editor's settings (those the user set, in user or workspace settings) over the repository's
 * taskloom.json over the defaults. The file is read here, not in the extension: the engine checks
 * it with the same code the CLI does, and the extension stays a shell. What in the file starts
 * programs or loosens confinement counts only in a trusted workspace (VS Code's Workspace Trust,
 * which the extension reports), as the workspace's own settings would.
 */
export function editorRunSettings(repoRoot: string, editorSettings: RunSettings, workspaceTrusted: boolean): EditorRunSettings {
  const layered = resolveProjectSettings({
    repoRoot,
    above: [{ source: 'setting', values: projectValuesOf(editorSettings) }],
    trust: { workspaceTrusted },
    reads: RUN_START_KEYS,
  });
  const warning = layered.withheld.length ? withheldWords(layered.file!, layered.withheld.map((w) => w.key), 'workspace_untrusted') : undefined;
  return { settings: runSettingsOf(layered.values), layered, ...(warning ? { warning } : {}) };
}
