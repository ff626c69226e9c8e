import type { AgentRole } from '../domain/events';
import type { HostPort } from './hostPort';

/** Who a process works for: an agent's role, or a setup or gate command. */
export type ProcessRole = AgentRole | 'setup' | 'gate';

/**
 * What one process may do, as data: logged with the run's confinement, enforced by one module per
 * platform (bubblewrapArgs.ts on Linux). Everything not named is denied: the system folders are
 * readable, the rest of the file system is not there, and the network is the sandbox's own loopback.
 */
export interface SandboxPolicy {
  role: ProcessRole;
  cwd: string;
  /** Read-write: the checkout when the role writes, the call's scratch folder (its TMPDIR), an agent's state. */
  writable: string[];
  /** Read-only besides the system: the checkout of a reading role, the repository's git dir, toolchains, the program. */
  readable: string[];
  /** Empty inside what is visible: the user's secrets, files an agent must not see. */
  hidden: string[];
  /** The home folder inside: present, empty and private to the process. */
  home?: string;
  /** Where it may connect beyond its own loopback, host and port exact. */
  hosts: HostPort[];
}

/** The system's own folders, readable by every process (where they exist). */
export const SYSTEM_READ_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/sys'];
