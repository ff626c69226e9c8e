import { doctorVerdict, runDoctorChecks, type DoctorCheck, type DoctorOptions } from '../../engine/doctor/doctorChecks';
import { runConfigFromSettings, SettingsError } from '../../engine/run/runConfigFromSettings';
import { TaskloomError } from '../../engine/domain/taskloomError';
import { inspectRepo } from '../../engine/workspace/repoInspector';
import { EXIT } from '../cliErrors';
import { ALLOW_CONFIG_OPTION, commandSettings, settingLabels } from '../commandSettings';
import { flagValues, runSettingsFrom, withAddingFlags } from '../flagSettings';
import { green, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { nextStepLines } from '../nextStepCommands';
import { RUN_START_KEYS } from '../../engine/domain/settingKeys';
import { RUN_CONFIG_OPTIONS, type RunConfigFlags } from '../runOptions';

const MARK: Record<DoctorCheck['status'], string> = { ok: green('✓'), warn: yellow('!'), fail: red('✗') };

/**
 * Checks what a run with the same flags would need (`taskloom doctor --critic-agent codex`
 * checks Claude Code and Codex), says where each setting came from (flag, environment,
 * taskloom.json, default) and what to fix; exit 1 when something blocks a run.
 */
export async function doctorCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { probe: { type: 'boolean' }, ...RUN_CONFIG_OPTIONS, ...ALLOW_CONFIG_OPTION });
  const settings = await runSettings(values as RunConfigFlags, cwd, values['allow-config'] === true);
  const checks = await runDoctorChecks(cwd, {
    ...settings,
    probe: values.probe === true,
    onCheck: (check) => process.stdout.write(`${MARK[check.status]} ${check.label.padEnd(12)} ${check.text}\n`),
  });
  process.stdout.write(`\n${doctorVerdict(checks, settings.config)}\n`);
  if (settings.provenance?.leftOut) process.stdout.write(nextStepLines([{ kind: 'allowConfigFile' }]));
  return checks.some((c) => c.status === 'fail') ? EXIT.needsHuman : EXIT.ok;
}

/** What a run with these flags would be made from, where each value came from, or why it could not be made. */
async function runSettings(flags: RunConfigFlags, cwd: string, allowConfig: boolean): Promise<Pick<DoctorOptions, 'config' | 'settingsProblem' | 'provenance'>> {
  const repoRoot = await inspectRepo(cwd).then((repo) => repo.root, () => cwd);
  try {
    // The doctor asks nothing: what the file may not set yet is reported, as a run would refuse it.
    const resolved = (await commandSettings(repoRoot, flagValues(flags), { allowConfig, onWithheld: 'report', reads: RUN_START_KEYS }))!;
    const layered = withAddingFlags(resolved, flags);
    const leftOut = resolved.withheld.length ? { leftOut: { file: resolved.file!, keys: resolved.withheld.map((w) => w.key), why: 'not_allowed' as const } } : {};
    const provenance = { ...layered, ...leftOut };
    try {
      return { provenance, config: runConfigFromSettings(runSettingsFrom(layered, flags), { baseDir: cwd, repoRoot, labels: settingLabels(layered.sources) }) };
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      return { provenance, settingsProblem: { message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
    }
  } catch (error) {
    // A bad flag, variable or taskloom.json: reported with the rest, as what blocks a run.
    if (!(error instanceof TaskloomError && error.kind === 'bad_input')) throw error;
    return { settingsProblem: { message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
  }
}
