import { runDoctorChecks, type DoctorCheck } from '../../engine/doctor/doctorChecks';
import { EXIT } from '../cliErrors';
import { green, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

const MARK: Record<DoctorCheck['status'], string> = { ok: green('✓'), warn: yellow('!'), fail: red('✗') };

/** Checks what a run needs and says what to fix; exit 1 when something blocks a run. */
export async function doctorCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { probe: { type: 'boolean' } });
  const checks = await runDoctorChecks(cwd, {
    probe: values.probe === true,
    onCheck: (check) => process.stdout.write(`${MARK[check.status]} ${check.label.padEnd(12)} ${check.text}\n`),
  });
  return checks.some((c) => c.status === 'fail') ? EXIT.needsHuman : EXIT.ok;
}
