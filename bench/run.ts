// Taskloom's benchmark: `npm run bench` (or `node --import tsx bench/run.ts`). Every figure is a
// ratio against a baseline measured in the same run; the results go to stdout and bench/RESULTS.md.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempRepo, type TempRepo } from '../test/helpers/tempRepo';
import { benchAffectedGraph } from './affectedGraphCost';
import { benchAppendCost } from './appendCost';
import { benchCandidates } from './candidatesBench';
import { benchDifferentialGate } from './differentialGate';
import { benchEngineOverhead } from './engineOverhead';
import { benchExtension } from './extensionBench';
import { benchOverlapScheduling } from './overlapScheduling';
import { benchRunScale } from './runScale';
import { benchSandboxCost } from './sandboxCost';
import { buildBigRun } from './fixtures';
import { describeMachine, type MachineDescription } from './machine';
import { renderMarkdown, renderText, type Section } from './report';
import { benchResumeLoad } from './resumeLoad';
import { benchSchedulerEfficiency } from './schedulerEfficiency';
import { benchStatsCost } from './statsCost';
import { benchStreamParse } from './streamParse';
import { benchWorktreeCost } from './worktreeCost';

const RUN_ID = '20260105-090000-b100';
const ALL_SECTIONS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];

const progress = (message: string): void => {
  process.stderr.write(`bench: ${message}\n`);
};

/**
 * BENCH_SECTIONS=3,4 runs only those sections (2 needs 1, so it brings it along) and replaces just
 * them in RESULTS.md, saying when and under what load they were measured (the machine table stays
 * the full run's).
 */
function wantedSections(): Set<number> {
  const raw = process.env.BENCH_SECTIONS?.trim();
  const wanted = new Set(raw ? raw.split(',').map((n) => Number(n.trim())) : ALL_SECTIONS);
  if (wanted.has(2)) wanted.add(1);
  return wanted;
}

async function main(): Promise<void> {
  const started = performance.now();
  const wanted = wantedSections();
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-')));
  const machine = describeMachine(work);
  const sections = new Map<number, Section>();
  let bigRepo: TempRepo | undefined;
  const step = async <T>(label: string, work: () => T | Promise<T>): Promise<T> => {
    const t0 = performance.now();
    progress(`${label}…`);
    const result = await work();
    progress(`${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return result;
  };
  try {
    // The engine and scheduler sections run first, in a process without the 100k-event run in memory.
    if (wanted.has(3)) sections.set(3, await step('3. engine overhead (real git, 2 plan shapes × 3 runs)', benchEngineOverhead));
    if (wanted.has(4)) sections.set(4, await step('4. scheduler efficiency', benchSchedulerEfficiency));
    if (wanted.has(7)) sections.set(7, await step('7. overlap-aware scheduling', benchOverlapScheduling));
    if (wanted.has(8)) sections.set(8, await step('8. engine at scale (whole runs of 20, 100, 500 tasks)', () => benchRunScale()));
    if (wanted.has(9)) sections.set(9, await step('9. worktree cost on a 50,000-file repository (runs of 8, 32, 100 tasks)', () => benchWorktreeCost()));
    if (wanted.has(10)) sections.set(10, await step('10. confinement cost (starts, gate runs, 20-task runs; confined vs not)', benchSandboxCost));
    if (wanted.has(11)) sections.set(11, await step('11. affected-only gates: the import graph (1,000 and 5,000 modules)', benchAffectedGraph));
    if (wanted.has(12)) sections.set(12, await step('12. the differential gate (20 tasks, full suite vs affected tests; baseline in whole runs)', benchDifferentialGate));
    if (wanted.has(13)) sections.set(13, await step('13. taskloom stats over 1,000 runs / 1,000,000 events', benchStatsCost));
    if (wanted.has(14)) sections.set(14, await step('14. candidates (40 tasks, 1 and 3 candidates each, each passing with probability 0.5)', benchCandidates));
    if (wanted.has(5)) sections.set(5, await step('5. stream-json parsing (50 MB)', () => benchStreamParse(work)));
    if (wanted.has(6)) sections.set(6, await step('6. extension in a real VS Code (activation, tree, run view)', benchExtension));
    if (wanted.has(1)) {
      bigRepo = makeTempRepo({ files: { 'README.md': '# bench: a run with 100,000 events\n' } });
      const big = await step('building a 100,000-event run', () => buildBigRun(bigRepo!.dir, RUN_ID));
      sections.set(1, (await step('1. append cost vs log size', () => benchAppendCost(work, big))).section);
      if (wanted.has(2)) sections.set(2, await step('2. resume load time (fresh processes)', () => benchResumeLoad(big)));
    }
  } finally {
    bigRepo?.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
  const ordered = ALL_SECTIONS.flatMap((n) => (sections.has(n) ? [sections.get(n)!] : []));
  const seconds = (performance.now() - started) / 1000;
  machine.loadAverage += ` at the start, ${loadavg()[0]!.toFixed(2)} at the end`;

  process.stdout.write(`${machineLine(machine)}\n\n${ordered.map(renderText).join('\n\n')}\n\nTotal: ${seconds.toFixed(1)} s\n`);
  const file = join(__dirname, 'RESULTS.md');
  if (ordered.length === ALL_SECTIONS.length) {
    writeFileSync(file, resultsMarkdown(machine, ordered, seconds));
    progress(`wrote ${file}`);
  } else if (existsSync(file) && ordered.length > 0) {
    writeFileSync(file, spliceSections(readFileSync(file, 'utf8'), ordered, machine));
    progress(`replaced section(s) ${ordered.map((s) => s.title.split('.')[0]).join(', ')} of ${file}`);
  }
}

/** RESULTS.md with these sections replaced (each by its number), noting that they were run alone. */
function spliceSections(markdown: string, sections: Section[], m: MachineDescription): string {
  let out = markdown;
  for (const section of sections) {
    const number = section.title.split('.')[0]!;
    const rendered = renderMarkdown({
      ...section,
      notes: [...section.notes, `Regenerated alone (\`BENCH_SECTIONS=${number}\`) on ${machineLine(m)}; the machine table above is the full run's.`],
    });
    const heading = new RegExp(`^## ${number}\\. .*$`, 'm');
    const found = heading.exec(out);
    if (!found) {
      out = `${out.trimEnd()}\n\n${rendered}`;
      continue;
    }
    const next = out.slice(found.index + found[0].length).search(/^## /m);
    const end = next < 0 ? out.length : found.index + found[0].length + next;
    out = `${out.slice(0, found.index)}${rendered}\n${out.slice(end)}`;
  }
  return out;
}

function machineLine(m: MachineDescription): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memory}, ${m.os}, Node ${m.node}, git ${m.git}, temp on ${m.tempFs}, load average ${m.loadAverage}, ${m.date}`;
}

function resultsMarkdown(m: MachineDescription, sections: Section[], seconds: number): string {
  return [
    '# Taskloom benchmark results',
    '',
    'Generated by `bench/run.ts`; do not edit by hand. Every figure is set against a baseline measured in the same run on the same machine.',
    '',
    '## Machine',
    '',
    '| | |',
    '| --- | --- |',
    `| CPU | ${m.cpu} |`,
    `| Cores | ${m.cores} |`,
    `| Memory | ${m.memory} |`,
    `| OS | ${m.os} |`,
    `| Node | ${m.node} |`,
    `| git | ${m.git} |`,
    `| Temp folder file system | ${m.tempFs} |`,
    `| Load average (1 min) | ${m.loadAverage} |`,
    `| Date | ${m.date} |`,
    `| Benchmark wall time | ${seconds.toFixed(1)} s |`,
    '',
    '## How to rerun',
    '',
    '```sh',
    'npm run bench                      # installs and builds if needed, then runs the benchmark',
    'node --import tsx bench/run.ts     # the benchmark alone',
    '```',
    '',
    'It needs git on PATH and writes only to a temp folder (removed afterwards) and to this file. Figures vary from run to',
    'run (fsync cost especially); compare ratios, not absolute times, across machines.',
    '',
    ...sections.map(renderMarkdown),
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
