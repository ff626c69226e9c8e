import type { Confinement, SandboxMode } from '../domain/sandboxSettings';
import { TaskloomError } from '../domain/taskloomError';
import { probeBubblewrap, type BubblewrapProbe } from './bubblewrap';

/**
 * How this session of a run starts its processes: confined by bubblewrap on Linux wherever it can
 * start; unconfined only where the mode allows it, saying why. `on` refuses to run unconfined.
 */
export async function resolveConfinement(mode: SandboxMode, platform: NodeJS.Platform = process.platform): Promise<Confinement> {
  if (mode === 'off') return { confined: false, mode, reason: 'confinement is off by choice (sandbox mode off)' };
  const probe: BubblewrapProbe =
    platform === 'linux'
      ? await probeBubblewrap()
      : { usable: false, reason: `there is no sandbox for ${platform} yet (Linux: bubblewrap); run Taskloom in WSL or a Linux container to confine it` };
  if (probe.usable) return { confined: true, mode, mechanism: probe.version };
  const { reason } = probe;
  if (mode === 'on') {
    throw new TaskloomError(
      'needs_environment',
      `Taskloom cannot confine this run: ${reason}.`,
      'The sandbox mode is "on", so it will not run unconfined: make confinement work, or set the mode to auto (unconfined where it cannot) or off.',
      { next: [{ kind: 'changeSetting', setting: 'sandboxMode', value: 'auto' }] },
    );
  }
  return { confined: false, mode, reason };
}
