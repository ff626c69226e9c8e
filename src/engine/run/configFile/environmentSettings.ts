import type { ProjectValues } from '../../domain/settingLayers';
import { environmentName, PROJECT_SETTING_KEYS } from '../../domain/settingKeys';
import { TaskloomError } from '../../domain/taskloomError';
import { CONFIG_FILE_RULES } from './configFileSchema';

/**
 * The settings the environment sets, for the CLI (and CI): `TASKLOOM_<KEY>` for every key of
 * taskloom.json (settingKeys.ts environmentName). A value is taken as text where the key holds
 * text, else as JSON: `TASKLOOM_MAX_PARALLEL=4`, `TASKLOOM_GATE_BASELINE=false`,
 * `TASKLOOM_GATE_COMMANDS='["npm test"]'`. The environment is the user's own, like a flag: its
 * values need no allowing. An empty variable counts as unset.
 */
export function environmentSettings(env: NodeJS.ProcessEnv): ProjectValues {
  const values: ProjectValues = {};
  const problems: string[] = [];
  for (const key of PROJECT_SETTING_KEYS) {
    const name = environmentName(key);
    // GitHub's own variable for its API is the environment's word for github.apiUrl too.
    const raw = env[name] ?? (key === 'github.apiUrl' ? env.GITHUB_API_URL : undefined);
    if (raw === undefined || raw.trim() === '') continue;
    const rule = CONFIG_FILE_RULES[key];
    const value = rule.schema.safeParse(raw).success ? raw : parseJson(raw);
    if (value !== undefined && rule.schema.safeParse(value).success) values[key] = value;
    else problems.push(`${name} must be ${rule.allows} (as JSON where it is not text), got ${JSON.stringify(raw)}`);
  }
  if (problems.length) throw new TaskloomError('bad_input', problems.join('; '), 'Fix or unset the variable, then run the command again.');
  return values;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
