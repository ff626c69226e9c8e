import type { NextStep } from '../engine/domain/nextStep';
import { terminalCommand } from '../commandLine/terminalCommands';
import { FLAG_LABELS } from './runOptions';

/** The command line a next step is in the CLI (the editor offers the same step as a button). */
export const nextStepCommand = (step: NextStep): string => terminalCommand(step, FLAG_LABELS);

/** The lines under an error or a watch's end: one command a line, indented under the words. */
export const nextStepLines = (steps: readonly NextStep[]): string => steps.map((step) => `  ${nextStepCommand(step)}\n`).join('');
