import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MachineDescription {
  cpu: string;
  cores: number;
  memory: string;
  os: string;
  node: string;
  git: string;
  /** File system of the temp folder the benchmark writes to: what an fsync costs depends on it. */
  tempFs: string;
  /** 1-minute load average when the benchmark started: other work on the machine skews every figure. */
  loadAverage: string;
  date: string;
}

export function describeMachine(tempDir: string): MachineDescription {
  const cpus = os.cpus();
  let git = 'unknown';
  try {
    git = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace(/^git version /, '');
  } catch {
    // Reported as unknown; the engine section will fail loudly anyway.
  }
  return {
    cpu: cpus[0]?.model.trim() || 'unknown',
    cores: cpus.length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    git,
    tempFs: fileSystemOf(tempDir),
    loadAverage: os.loadavg()[0]!.toFixed(2),
    date: new Date().toISOString(),
  };
}

/** `ext4 on /dev/vda (mounted at /)` from /proc/mounts; 'unknown' elsewhere than Linux. */
function fileSystemOf(dir: string): string {
  try {
    const target = path.resolve(dir);
    let best: { mount: string; type: string; device: string } | undefined;
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, mount, type] = line.split(' ');
      if (!device || !mount || !type) continue;
      const inside = target === mount || target.startsWith(mount.endsWith('/') ? mount : `${mount}/`);
      if (inside && (!best || mount.length >= best.mount.length)) best = { mount, type, device };
    }
    return best ? `${best.type} on ${best.device} (mounted at ${best.mount})` : 'unknown';
  } catch {
    return 'unknown';
  }
}
