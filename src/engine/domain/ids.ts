/**
 * Run and task ids become git branch names (`taskloom/<run>/<task>`), folder names and shell
 * words, so one rule serves both: letters, digits, ".", "_" and "-", starting with a letter or
 * digit, with no ".." and no ending git refuses (".lock", "."). Each kind has its own length limit.
 */
export const ID_MAX_LENGTH = { task: 48, run: 128 } as const;
export type IdKind = keyof typeof ID_MAX_LENGTH;

/** The characters of an id, as a pattern (the plan's JSON schema publishes the task one). */
export const idPattern = (kind: IdKind): RegExp => new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${ID_MAX_LENGTH[kind] - 1}}$`);

const PATTERNS: Record<IdKind, RegExp> = { task: idPattern('task'), run: idPattern('run') };

export const isSafeId = (id: string, kind: IdKind): boolean =>
  PATTERNS[kind].test(id) && !id.includes('..') && !/\.lock$/i.test(id) && !id.endsWith('.');
