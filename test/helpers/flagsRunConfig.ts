import { flagValues, runSettingsFrom, withAddingFlags } from '../../src/cli/flagSettings';
import { FLAG_LABELS, type RunConfigFlags } from '../../src/cli/runOptions';
import type { RunConfig } from '../../src/engine/domain/runConfig';
import { layerSettings } from '../../src/engine/domain/settingLayers';
import { runConfigFromSettings } from '../../src/engine/run/runConfigFromSettings';

/** The run config the CLI makes of these flags alone (no environment, no taskloom.json). */
export function flagsRunConfig(flags: RunConfigFlags, cwd: string, repoRoot: string): RunConfig {
  const layered = withAddingFlags(layerSettings([{ source: 'flag', values: flagValues(flags) }]), flags);
  return runConfigFromSettings(runSettingsFrom(layered, flags), { baseDir: cwd, repoRoot, labels: FLAG_LABELS });
}
