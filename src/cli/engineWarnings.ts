import type { TaskloomEngine } from '../engine/run/engine';
import { yellow } from './format';

/** The warnings the engine gathered since they were last printed (a log's torn line, leftover agents stopped…), on stderr. */
export function printNewWarnings(engine: TaskloomEngine): void {
  for (const warning of engine.warnings.splice(0)) process.stderr.write(yellow(`warning: ${warning}\n`));
}
