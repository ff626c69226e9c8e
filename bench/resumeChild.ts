// Run by resumeLoad.ts in a fresh process, so each load is timed as `taskloom resume` meets it:
// a new heap, nothing warmed up. Prints one JSON line with the timings (ms) on stdout.
//   resumeChild.ts floor <eventsFile>
//   resumeChild.ts load <root> <runId>
//   resumeChild.ts parts <eventsFile> <afterSeq>
import fs from 'node:fs';
import { foldEvents } from '../src/engine/domain/projection';
import { TaskloomEngine } from '../src/engine/run/engine';
import { renderDecisionsMarkdown, renderRunJson } from '../src/engine/store/derivedFiles';
import { EventLog } from '../src/engine/store/eventLog';
import { gitTimings } from '../src/engine/workspace/git';
import { stateJsonText } from './fixtures';
import { median, timeSync } from './stats';

const REPS = 3;

function medianOf(work: () => void): number {
  return median(Array.from({ length: REPS }, () => timeSync(work)));
}

async function main(): Promise<Record<string, number>> {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === 'floor') {
    const file = a!;
    // Read+parse first, while the heap is as fresh as in a real resume.
    const readParse = timeSync(() => {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) if (line) JSON.parse(line);
    });
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
    const parse = timeSync(() => {
      for (const line of lines) JSON.parse(line);
    });
    return { parse, readParse, lines: lines.length };
  }
  if (mode === 'load') {
    const root = a!;
    const runId = b!;
    gitTimings.reset();
    const t0 = performance.now();
    const engine = await TaskloomEngine.open(root, { command: 'bench resume' });
    const t1 = performance.now();
    const gitMs = gitTimings.busyMs;
    const lastSeq = engine.session(runId).state.lastSeq;
    const t2 = performance.now();
    engine.close();
    const t3 = performance.now();
    if (engine.warnings.length > 0) throw new Error(`unexpected warnings: ${engine.warnings.join('; ')}`);
    return { open: t1 - t0, session: t2 - t1, total: t2 - t0, git: gitMs, close: t3 - t2, lastSeq };
  }
  if (mode === 'parts') {
    const file = a!;
    const afterSeq = Number(b);
    let read: ReturnType<typeof EventLog.read> | undefined;
    const logRead = medianOf(() => {
      read = EventLog.read(file);
    });
    const tailRead = medianOf(() => {
      EventLog.read(file, { afterSeq });
    });
    const state = foldEvents(read!.events)!;
    const fold = medianOf(() => {
      foldEvents(read!.events);
    });
    read = undefined;
    const clone = medianOf(() => {
      structuredClone(state);
    });
    const stateJson = stateJsonText(state, state);
    let data: unknown;
    const stateParse = medianOf(() => {
      data = JSON.parse(stateJson);
    });
    const stateStringify = medianOf(() => {
      JSON.stringify(data);
    });
    const decisions = medianOf(() => {
      renderDecisionsMarkdown(state);
    });
    const runJson = medianOf(() => {
      JSON.stringify(renderRunJson(state), null, 2);
    });
    return {
      logRead,
      tailRead,
      fold,
      clone,
      stateParse,
      stateStringify,
      decisions,
      runJson,
      stateJsonBytes: Buffer.byteLength(stateJson),
      decisionsBytes: Buffer.byteLength(renderDecisionsMarkdown(state)),
      decisionCount: state.decisions.length,
      transitionCount: Object.values(state.tasks).reduce((sum, t) => sum + t.transitions.length, 0),
    };
  }
  throw new Error(`unknown mode ${String(mode)}`);
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
