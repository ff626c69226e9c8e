import { allowConfigFile } from '../../engine/usecases/projectSettings';
import { inspectRepo } from '../../engine/workspace/repoInspector';
import { EXIT, UsageError } from '../cliErrors';
import { green } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

export const CONFIG_USAGE = 'taskloom config allow [--cwd DIR]';

/**
 * `taskloom config allow`: the user allows the repository's taskloom.json, as it is now, to set
 * what starts programs or loosens confinement (gate and setup commands, agent paths, sandbox
 * keys…) on this machine; a change to any of those values asks again. For CI, where nobody can
 * answer the question a run asks (or pass --allow-config to the command itself).
 */
export async function configCommand(argv: string[]): Promise<number> {
  const { positionals, cwd } = parseCommandArgs(argv, {});
  if (positionals[0] !== 'allow' || positionals.length > 1) throw new UsageError(`config takes one action, allow; got ${JSON.stringify(positionals.join(' '))}`, CONFIG_USAGE);
  const { file, allowed } = allowConfigFile((await inspectRepo(cwd)).root);
  if (!allowed.length) {
    process.stdout.write(`${file} sets nothing that starts a program; it is used without asking. Recorded anyway.\n`);
    return EXIT.ok;
  }
  process.stdout.write(`${green(`Allowed ${file} on this machine`)}, with:\n${allowed.map((w) => `  "${w.key}": ${JSON.stringify(w.value)}\n`).join('')}A change to any of these asks again.\n`);
  return EXIT.ok;
}
