// What the child registry (src/engine/process/childRegistry.ts) costs an agent call: every process
// group started and ended rewrites the workspace's registry file. `node --import tsx bench/childRegistryCost.ts`
// times, in interleaved rounds so disk noise hits them alike: a trivial command run through the real
// runProcess with the registry kept and without it, a Node process (the floor of an agent CLI's
// start), and one registry write as the registry makes it (no fsync) against the store's fsync'ed one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childRegistry } from '../src/engine/process/childRegistry';
import { runProcess } from '../src/engine/process/processGroup';
import { writeFileAtomic } from '../src/engine/io/atomicWrite';
import { median, percentile, timeAsync } from './stats';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const work = mkdtempSync(join(tmpdir(), 'taskloom-registry-'));
const registryFile = join(work, 'registry.json');
const content = JSON.stringify({ owner: process.pid, groups: [{ pgid: 4242, startedAt: '123456' }] });

const run = (command: string, args: string[]) => timeAsync(async () => void (await runProcess({ command, args, cwd: work })));
const write = (body: () => void) => timeAsync(async () => body());

async function main(): Promise<void> {
  const series: Record<string, number[]> = {
    'runProcess(true), registry kept (2 writes)': [],
    'runProcess(true), no registry': [],
    'runProcess(node -e ""), registry kept': [],
    'runProcess(node -e ""), no registry': [],
    'one write fsync\'ed (temp, fsync, rename, fsync dir)': [],
    'one write as the registry makes it (no fsync)': [],
  };
  const [withTrue, withoutTrue, withNode, withoutNode, synced, unsynced] = Object.values(series) as number[][];
  // Warm-up: the first spawns page the binaries in.
  for (let i = 0; i < 5; i++) await run('true', []);
  for (let round = 0; round < ROUNDS; round++) {
    childRegistry.persistTo(work, registryFile);
    withTrue!.push(await run('true', []));
    if (round % 4 === 0) withNode!.push(await run(process.execPath, ['-e', '']));
    childRegistry.persistTo(work, undefined);
    withoutTrue!.push(await run('true', []));
    if (round % 4 === 0) withoutNode!.push(await run(process.execPath, ['-e', '']));
    synced!.push(await write(() => writeFileAtomic(registryFile, content)));
    unsynced!.push(await write(() => writeFileAtomic(registryFile, content, { survivesProcessOnly: true })));
  }
  for (const [name, samples] of Object.entries(series)) {
    process.stdout.write(`${name.padEnd(54)} median ${median(samples).toFixed(3)} ms  p90 ${percentile(samples, 90).toFixed(3)} ms  (n=${samples.length})\n`);
  }
}

main()
  .catch((error: unknown) => {
    process.exitCode = 1;
    console.error(error);
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
