import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectValues } from '../../domain/settingLayers';
import { needsTrust, PROJECT_SETTING_KEYS, type ProjectSettingKey } from '../../domain/settingKeys';
import { TaskloomError } from '../../domain/taskloomError';
import { canonicalJson } from '../runProvenance';
import { CONFIG_FILE_RULES } from './configFileSchema';

/** The project's configuration file, at the repository's root. */
export const CONFIG_FILE_NAME = 'taskloom.json';

export interface ConfigFile {
  path: string;
  /** Every key the file sets, checked. */
  values: ProjectValues;
  /** The keys it sets that start programs, carry credentials or widen confinement (settingKeys.ts SAFE_PROJECT_KEYS). */
  needingTrust: ProjectSettingKey[];
  /** Of those keys and their values only: allowing the file once holds until one of them changes. */
  fingerprint: string;
}

/** taskloom.json that cannot be used: not JSON, or keys or values Taskloom does not know; each problem names its key. */
export class ConfigFileError extends TaskloomError {
  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    super('bad_input', `${path} cannot be used: ${problems.join('; ')}`, 'Fix the file (its keys are the editor\'s taskloom.* settings without "taskloom.", e.g. "gate.commands"), then run the command again.');
    this.name = 'ConfigFileError';
  }
}

/** The repository's taskloom.json, checked; undefined when there is none. Throws ConfigFileError naming each bad key. */
export function readConfigFile(repoRoot: string): ConfigFile | undefined {
  const path = join(repoRoot, CONFIG_FILE_NAME);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigFileError(path, [`it is not JSON (${(error as Error).message})`]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigFileError(path, ['it must be one JSON object of settings, e.g. {"maxParallel": 2}']);
  const values: ProjectValues = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    // The editor's JSON language reads "$schema"; Taskloom does not.
    if (key === '$schema') continue;
    if (!isKey(key)) {
      problems.push(unknownKeyProblem(key, value));
      continue;
    }
    const rule = CONFIG_FILE_RULES[key];
    if (!rule.schema.safeParse(value).success) problems.push(`"${key}" must be ${rule.allows}, got ${JSON.stringify(value)}`);
    else values[key] = value;
  }
  if (problems.length) throw new ConfigFileError(path, problems);
  const needingTrust = (Object.keys(values) as ProjectSettingKey[]).filter(needsTrust).sort();
  const trusted = Object.fromEntries(needingTrust.map((key) => [key, values[key]]));
  return { path, values, needingTrust, fingerprint: createHash('sha256').update(canonicalJson(trusted)).digest('hex') };
}

const isKey = (key: string): key is ProjectSettingKey => (PROJECT_SETTING_KEYS as readonly string[]).includes(key);

/** Keys written as the editor's (`taskloom.maxParallel`), in another case or separator (`gate_commands`), or nested (`{"gate": {"commands": …}}`). */
function unknownKeyProblem(key: string, value: unknown): string {
  const loose = (k: string) => k.replace(/^taskloom\./i, '').replace(/[^a-z0-9]/gi, '').toLowerCase();
  const near = PROJECT_SETTING_KEYS.find((known) => loose(known) === loose(key)) ?? PROJECT_SETTING_KEYS.find((known) => oneTypoApart(loose(known), loose(key)));
  const nested =
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.keys(value).map((inner) => `${key}.${inner}`).filter(isKey)
      : [];
  const hint = near ? `; did you mean "${near}"?` : nested.length ? `; write each setting as one dotted key: ${nested.map((k) => `"${k}"`).join(', ')}` : '; the keys are the editor\'s taskloom.* settings without "taskloom."';
  return `"${key}" is not a Taskloom setting${hint}`;
}

/** One letter added, dropped or changed: the typo a did-you-mean is for (`maxParalel`, `gate.command`). */
function oneTypoApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const rest = (x: string, skip: number) => x.slice(i + skip);
  return rest(a, 1) === rest(b, 1) || rest(a, 1) === rest(b, 0) || rest(a, 0) === rest(b, 1);
}
