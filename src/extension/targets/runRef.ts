/** What a command acts on: tree rows, Needs You rows, notifications and the run view's intents all carry this shape. */
export interface RunRef {
  folder: string;
  runId: string;
}
export interface TaskRef extends RunRef {
  taskId: string;
}

export const isRunRef = (value: unknown): value is RunRef =>
  typeof value === 'object' && value !== null && typeof (value as RunRef).folder === 'string' && typeof (value as RunRef).runId === 'string';

export const isTaskRef = (value: unknown): value is TaskRef => isRunRef(value) && typeof (value as TaskRef).taskId === 'string';
