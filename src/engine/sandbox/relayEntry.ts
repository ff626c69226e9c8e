import { join } from 'node:path';
import { findPackageRoot } from '../process/packageRoot';

/** The bundled relay that runs first inside a sandbox that may reach the network (sandboxRelayMain.ts). */
export const relayEntry = (): string => join(findPackageRoot(), 'dist', 'sandbox-relay.js');
