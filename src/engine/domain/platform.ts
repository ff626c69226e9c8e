import { TaskloomError } from './taskloomError';

/**
 * Where the engine runs: Linux and macOS. It runs each agent and gate in a POSIX process group
 * so that stopping a task stops all it started, which native Windows does not have; there one
 * clear refusal, naming what works, is better than a failure deep inside a run.
 */
export function unsupportedPlatformError(platform: NodeJS.Platform): TaskloomError | undefined {
  if (platform !== 'win32') return undefined;
  return new TaskloomError(
    'needs_environment',
    'Taskloom does not run on Windows itself: it needs POSIX process groups to stop the agents and gates it starts',
    'Use it inside WSL, or from VS Code on Windows through Remote - WSL, Remote - SSH or Dev Containers to a Linux or macOS machine.',
  );
}
