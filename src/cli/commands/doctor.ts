import { doctorVerdict, runDoctorChecks, type DoctorCheck, type DoctorOptions } from '../../engine/doctor/doctorChecks';
import { SettingsError } from '../../engine/run/runConfigFromSettings';
import { inspectRepo } from '../../engine/workspace/repoInspector';
import { EXIT, UsageError } from '../cliErrors';
import { green, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { buildRunConfig, RUN_CONFIG_OPTIONS, type RunConfigFlags } from '../runOptions';

const MARK: Record<DoctorCheck['status'], string> = { ok: green('✓'), warn: yellow('!'), fail: red('✗') };

/**
 * Checks what a run with the same flags would need (`taskloom doctor --critic-agent codex`
 * checks Claude Code and Codex) and says what to fix; exit 1 when something blocks a run.
 */
export async function doctorCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { probe: { type: 'boolean' }, ...RUN_CONFIG_OPTIONS });
  const settings = await runSettings(values as RunConfigFlags, cwd);
  const checks = await runDoctorChecks(cwd, {
    ...settings,
    probe: values.probe === true,
    onCheck: (check) => process.stdout.write(`${MARK[check.status]} ${check.label.padEnd(12)} ${check.text}\n`),
  });
  process.stdout.write(`\n${doctorVerdict(checks, settings.config)}\n`);
  return checks.some((c) => c.status === 'fail') ? EXIT.needsHuman : EXIT.ok;
}

async function runSettings(flags: RunConfigFlags, cwd: string): Promise<Pick<DoctorOptions, 'config' | 'settingsProblem'>> {
  const repoRoot = await inspectRepo(cwd).then((repo) => repo.root, () => cwd);
  try {
    return { config: buildRunConfig(flags, cwd, repoRoot) };
  } catch (error) {
    if (!(error instanceof SettingsError || error instanceof UsageError)) throw error;
    return { settingsProblem: { message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
  }
}
