import type { ForgeAccess } from '../../deliver/issueStatusFollower';
import { isConfigFileAllowed } from './allowedConfigFiles';
import { environmentSettings } from './environmentSettings';
import { readConfigFile } from './readConfigFile';

/**
 * The GitHub API a door reaches when it names none (`resume`, `decide`, `choose`… keep a run's
 * issue comment current too): the environment's, else taskloom.json's `github.apiUrl` once the file
 * is allowed on this machine (the token goes there, so an unallowed file sets nothing, as for
 * `run`). A file that cannot be read sets nothing here: the command that reads it says why.
 */
export function configuredForgeAccess(repoRoot: string, env: NodeJS.ProcessEnv = process.env): ForgeAccess {
  const fromEnvironment = environmentSettings(env)['github.apiUrl'];
  if (typeof fromEnvironment === 'string') return { apiUrl: fromEnvironment };
  let file;
  try {
    file = readConfigFile(repoRoot);
  } catch {
    return {};
  }
  const fromFile = file?.values['github.apiUrl'];
  return typeof fromFile === 'string' && isConfigFileAllowed(repoRoot, file!, env) ? { apiUrl: fromFile } : {};
}
