/*
 * Plan files: `.json` holds a Plan object as parsePlan accepts it. `.md` (or `.markdown`) is a
 * checklist a human can write and read:
 *
 *   # Goal: add rate limiting                  ← the goal: the first level-1 heading ("Goal:" optional)
 *   Why the plan is shaped this way.           ← prose before the first task: the rationale (optional)
 *
 *   - [ ] config: Add limiter settings         ← a task: checkbox, id, colon, title (`[x]` counts too)
 *     Read limits from the environment.        ← indented lines: the description (blank lines kept
 *                                                 as paragraph breaks, fenced code kept verbatim)
 *     - accept: defaults to 100 req/min        ← one acceptance criterion per `accept:` line
 *   - [ ] api: Add limiter middleware
 *     Wrap every route in the limiter.
 *     - accept: returns 429 after 100 req/min
 *     - depends: config, db                    ← ids, separated by commas or spaces ("none" = no deps)
 *     - files: src/api.ts, src/limits.ts       ← paths, separated by commas
 *     - agent: codex                           ← this task's own actor agent and model (optional)
 *     - model: gpt-5-codex-mini
 *     - accept:                                ← a key with an empty value takes the deeper bullets
 *       - logs each rejected request              below it as its list
 *
 * Task details are indented by at least two spaces (or a tab). `## ` subheadings are ignored.
 * Any other unindented text after the first task is an error rather than silently dropped.
 * `accept`/`acceptance`, `depends`/`depends on`/`deps` and `file`/`files` are accepted spellings.
 */
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { Plan } from '../domain/plan';
import { PlanValidationError, parsePlan, type ProblemPlace } from './parsePlan';
import { jsonSpans, lineSpan, spanOfOffsets } from './problemSpans';
import { TaskloomError } from '../domain/taskloomError';
import { describeJsonError, jsonErrorOffset } from '../text/jsonErrorWords';

/** The plan file could not be read at all (missing, a directory, unsupported kind). */
export class PlanFileError extends TaskloomError {
  override readonly name = 'PlanFileError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super('bad_input', message);
  }
}

/** Reads and validates a `.json` or `.md` plan file. Throws PlanFileError or PlanValidationError (with `source` = path). */
export function loadPlanFile(path: string): Plan {
  const kind = extname(path).toLowerCase();
  if (!['.json', '.md', '.markdown'].includes(kind)) {
    throw new PlanFileError(path, `Unsupported plan file "${path}": expected a .json or .md file`);
  }
  const text = readPlanText(path);
  return kind === '.json' ? parsePlanJson(text, path) : parsePlanMarkdown(text, path);
}

/** Far above any plan a person or a planner writes; a bigger file is refused before it is read. */
export const MAX_PLAN_FILE_BYTES = 10 * 1024 * 1024;

function readPlanText(path: string): string {
  try {
    const { size } = statSync(path);
    if (size > MAX_PLAN_FILE_BYTES) {
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
      throw new PlanFileError(path, `Plan file ${path} is ${mb(size)}; a plan file may be at most ${mb(MAX_PLAN_FILE_BYTES)}`);
    }
    return readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    if (err instanceof PlanFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new PlanFileError(path, `Plan file not found: ${path}`);
    if (code === 'EISDIR') throw new PlanFileError(path, `Plan file is a directory, not a file: ${path}`);
    throw new PlanFileError(path, `Cannot read plan file ${path}: ${(err as Error).message}`);
  }
}

/** Parses JSON plan text; each problem comes with its span in the text (syntax errors too). */
export function parsePlanJson(text: string, source = 'plan.json'): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const offset = jsonErrorOffset(text);
    throw new PlanValidationError([describeJsonError(text, err)], source, [offset < 0 ? undefined : { span: spanOfOffsets(text, offset, offset + 1) }]);
  }
  return withSource(source, () => parsePlan(data), (places) => {
    const spanOf = jsonSpans(text);
    return places.map((place) => (place?.path ? { ...place, span: spanOf(place.path) } : place));
  });
}

function withSource<T>(source: string, parse: () => T, locate: (places: Array<ProblemPlace | undefined>) => Array<ProblemPlace | undefined>): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof PlanValidationError && err.source === undefined) {
      throw new PlanValidationError(err.problems, source, locate(err.problems.map((_, i) => err.places[i])));
    }
    throw err;
  }
}


interface MarkdownTask {
  /** The 1-based line of its `- [ ] id: title`. */
  line: number;
  id: string;
  title: string;
  body: string[];
  acceptance: string[];
  dependsOn: string[];
  files: string[] | undefined;
  agent?: string;
  model?: string;
}

type ListKey = 'acceptance' | 'dependsOn' | 'files';

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const TASK_LINE = /^[-*+]\s+\[[ xX]\]\s+(.*)$/;
const TASK_HEAD = /^`?([^\s:`]+)`?\s*:\s*(.*)$/;
const KEY_LINE = /^[-*+]\s+(accept|acceptance|depends on|depends|deps|files?)\s*:\s*(.*)$/i;
const SCALAR_LINE = /^[-*+]\s+(agent|model)\s*:\s*(.*)$/i;
const BULLET = /^[-*+]\s+(.*)$/;
const FENCE = /^(```|~~~)/;

const KEYS: Record<string, ListKey> = {
  accept: 'acceptance',
  acceptance: 'acceptance',
  'depends on': 'dependsOn',
  depends: 'dependsOn',
  deps: 'dependsOn',
  file: 'files',
  files: 'files',
};

const indentOf = (line: string): number => {
  let width = 0;
  for (const ch of line) {
    if (ch === ' ') width++;
    else if (ch === '\t') width += 4;
    else break;
  }
  return width;
};

const unquote = (s: string): string => s.trim().replace(/^`(.*)`$/, '$1').trim();

function splitValues(key: ListKey, value: string): string[] {
  if (key === 'acceptance') return value.trim() === '' ? [] : [value.trim()];
  const parts = key === 'files' ? value.split(',') : value.split(/[,\s]+/);
  const items = parts.map(unquote).filter((p) => p !== '');
  return key === 'dependsOn' && items.length === 1 && /^(none|-|—)$/i.test(items[0]!) ? [] : items;
}

/** Parses Markdown checklist plan text (format at the top of this file). */
export function parsePlanMarkdown(text: string, source = 'plan.md'): Plan {
  const problems: string[] = [];
  const places: Array<ProblemPlace | undefined> = [];
  const report = (line: number, message: string) => {
    problems.push(message);
    places.push({ span: lineSpan(text, line) });
  };
  let goal: string | undefined;
  let goalLine = 1;
  const preamble: string[] = [];
  const tasks: MarkdownTask[] = [];
  let current: MarkdownTask | undefined;
  let inFence = false;
  let list: { key: ListKey; indent: number } | undefined;

  text.split(/\r?\n/).forEach((line, i) => {
    const lineNo = i + 1;
    const trimmed = line.trim();
    const indent = indentOf(line);

    if (current && inFence) {
      current.body.push(line);
      if (FENCE.test(trimmed)) inFence = false;
      return;
    }
    if (trimmed === '') {
      if (current) current.body.push('');
      else if (tasks.length === 0) preamble.push('');
      return;
    }
    if (current && indent >= 2) {
      if (list && indent > list.indent) {
        const bullet = BULLET.exec(trimmed);
        if (bullet) {
          current[list.key] = [...(current[list.key] ?? []), ...splitValues(list.key, bullet[1]!)];
          return;
        }
      }
      list = undefined;
      const key = KEY_LINE.exec(trimmed);
      if (key) {
        const field = KEYS[key[1]!.toLowerCase()]!;
        const value = key[2]!.trim();
        if (value === '') list = { key: field, indent };
        else current[field] = [...(current[field] ?? []), ...splitValues(field, value)];
        return;
      }
      const scalar = SCALAR_LINE.exec(trimmed);
      if (scalar) {
        current[scalar[1]!.toLowerCase() as 'agent' | 'model'] = unquote(scalar[2]!);
        return;
      }
      if (FENCE.test(trimmed)) inFence = true;
      current.body.push(line);
      return;
    }

    list = undefined;
    const heading = HEADING.exec(trimmed);
    if (heading) {
      current = undefined;
      if (heading[1] !== '#') return;
      if (goal === undefined) {
        goal = heading[2]!.replace(/^goal\s*:\s*/i, '');
        goalLine = lineNo;
      } else report(lineNo, `line ${lineNo}: a second "# " heading; a plan file has one goal heading`);
      return;
    }
    const taskLine = TASK_LINE.exec(trimmed);
    if (taskLine) {
      const head = TASK_HEAD.exec(taskLine[1]!);
      if (!head) {
        report(lineNo, `line ${lineNo}: a task line needs "id: title", got "${trimmed}"`);
        // Its indented details still belong to it, not to the task above; they are dropped with it.
        current = { line: lineNo, id: '', title: '', body: [], acceptance: [], dependsOn: [], files: undefined };
        return;
      }
      current = { line: lineNo, id: head[1]!, title: head[2]!, body: [], acceptance: [], dependsOn: [], files: undefined };
      tasks.push(current);
      return;
    }
    if (tasks.length === 0 && !current) {
      preamble.push(trimmed);
      return;
    }
    report(
      lineNo,
      `line ${lineNo}: "${trimmed.length > 60 ? `${trimmed.slice(0, 57)}...` : trimmed}" is outside any task; ` +
        'indent it by two spaces to make it part of the task above, or start a task with "- [ ] id: title"',
    );
  });

  if (goal === undefined || goal === '') report(goalLine, 'missing the goal: start the file with "# Goal: <what to achieve>"');
  if (tasks.length === 0) report(1, 'no tasks found: list each task as "- [ ] id: title" with its details indented below');

  const rationale = joinParagraphs(preamble);
  const raw = {
    // Placeholders for what was already reported above, so parsePlan does not report it a second time.
    goal: goal || 'missing',
    ...(rationale ? { rationale } : {}),
    tasks: tasks.map((t) => ({
      id: t.id,
      title: t.title,
      description: joinParagraphs(dedent(t.body)),
      acceptance: t.acceptance,
      dependsOn: t.dependsOn,
      ...(t.files ? { files: t.files } : {}),
      ...(t.agent ? { agent: t.agent } : {}),
      ...(t.model ? { model: t.model } : {}),
    })),
  };
  let plan: Plan | undefined;
  try {
    plan = parsePlan(raw);
  } catch (err) {
    if (!(err instanceof PlanValidationError)) throw err;
    err.problems.forEach((problem, i) => {
      if (tasks.length === 0 && problem.startsWith('tasks:')) return;
      // A task's problem sits on its line: the Markdown has no finer place for a field.
      const [top, index] = err.places[i]?.path ?? [];
      const task = top === 'tasks' && typeof index === 'number' ? tasks[index] : undefined;
      report(task?.line ?? goalLine, problem);
    });
  }
  if (problems.length > 0 || !plan) throw new PlanValidationError(problems, source, places);
  return plan;
}

function dedent(lines: readonly string[]): string[] {
  const margin = Math.min(...lines.filter((l) => l.trim() !== '').map(indentOf));
  return lines.map((l) => {
    let cut = 0;
    let width = 0;
    while (cut < l.length && width < margin && (l[cut] === ' ' || l[cut] === '\t')) {
      width += l[cut] === '\t' ? 4 : 1;
      cut++;
    }
    return l.slice(cut).trimEnd();
  });
}

/** Joins lines, keeping one blank line between paragraphs and none at either end. */
function joinParagraphs(lines: readonly string[]): string {
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
