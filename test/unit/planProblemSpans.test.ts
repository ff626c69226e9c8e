import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePlanJson, parsePlanMarkdown } from '../../src/engine/plan/loadPlanFile';
import { validationError } from '../helpers/planErrors';
import { jsonSpans, lineSpan, spanOfOffsets, type TextSpan } from '../../src/engine/plan/problemSpans';

/** The text a span covers, as an editor would underline it. */
function underlined(text: string, span: TextSpan | undefined): string {
  assert.ok(span, 'expected a span');
  const lines = text.split('\n');
  assert.equal(span.line, span.endLine, 'these spans stay on one line');
  return lines[span.line - 1]!.slice(span.column - 1, span.endColumn - 1);
}

const JSON_PLAN = `{
  "goal": "add rate limiting",
  "tasks": [
    { "id": "config", "title": "Add limiter settings", "description": "Read limits." },
    {
      "id": "api",
      "title": "",
      "description": "Wrap every route.",
      "dependsOn": ["config", "db"]
    },
    { "id": "config", "description": "again" }
  ]
}
`;

describe('plan problems: where they are in the file', () => {
  test('offsets become 1-based lines and columns', () => {
    assert.deepEqual(spanOfOffsets('ab\ncd', 3, 5), { line: 2, column: 1, endLine: 2, endColumn: 3 });
    assert.deepEqual(spanOfOffsets('ab', 0, 0), { line: 1, column: 1, endLine: 1, endColumn: 2 }, 'an empty span still shows one character');
    assert.deepEqual(spanOfOffsets('a\n\nbc\n', 4, 5), { line: 3, column: 2, endLine: 3, endColumn: 3 });
    assert.deepEqual(spanOfOffsets('a\nb', 1, 3), { line: 1, column: 2, endLine: 2, endColumn: 2 }, 'across a line end');
  });

  test('a line span covers its text without the indentation', () => {
    assert.deepEqual(lineSpan('x\n  - [ ] a: A  \n', 2), { line: 2, column: 3, endLine: 2, endColumn: 13 });
  });

  test('a JSON path names the value; a missing field names the line of the object that lacks it', () => {
    const jsonSpanOf = (text: string, path: Array<string | number>) => jsonSpans(text)(path);
    assert.equal(underlined(JSON_PLAN, jsonSpanOf(JSON_PLAN, ['tasks', 1, 'title'])), '""');
    assert.equal(underlined(JSON_PLAN, jsonSpanOf(JSON_PLAN, ['tasks', 1, 'dependsOn', 1])), '"db"');
    assert.equal(jsonSpanOf(JSON_PLAN, ['tasks', 2, 'title'])?.line, 11);
    assert.equal(underlined(JSON_PLAN, jsonSpanOf(JSON_PLAN, ['tasks'])), '"tasks": [');
  });

  test('a plan with a thousand broken tasks is located at once', () => {
    const tasks = Array.from({ length: 1000 }, (_, i) => `    { "id": "t${i}", "title": "", "description": "d" }`);
    const text = `{\n  "goal": "g",\n  "tasks": [\n${tasks.join(',\n')}\n  ]\n}\n`;
    const error = validationError(() => parsePlanJson(text));
    assert.equal(error.problems.length, 1000);
    assert.equal(error.places[999]?.span?.line, 1003);
  });

  test('every problem of a JSON plan carries its span: empty title, unknown dependency, duplicate id, missing title', () => {
    const error = validationError(() => parsePlanJson(JSON_PLAN));
    const spans = new Map(error.problems.map((p, i) => [p, error.places[i]?.span]));
    const find = (part: string) => [...spans].find(([p]) => p.includes(part)) ?? assert.fail(`no problem about ${part}: ${error.problems.join('; ')}`);
    assert.equal(underlined(JSON_PLAN, find('tasks[1].title')[1]), '""');
    assert.equal(underlined(JSON_PLAN, find('unknown task "db"')[1]), '"db"');
    assert.equal(underlined(JSON_PLAN, find('duplicate task id')[1]), '"config"');
    assert.equal(find('duplicate task id')[1]?.line, 11, 'the second use of the id is marked');
    assert.equal(find('tasks[2].title')[1]?.line, 11);
  });

  test('a JSON syntax error sits where the text breaks', () => {
    const text = '{\n  "goal": "x",\n  "tasks": [ }\n}';
    const error = validationError(() => parsePlanJson(text));
    assert.deepEqual(error.places[0]?.span, { line: 3, column: 14, endLine: 3, endColumn: 15 });
  });

  test('a Markdown plan problem sits on its real line', () => {
    const text = ['# Goal: add rate limiting', '', '- [ ] config: Add limiter settings', '  Read limits.', '- [ ] api: Add middleware', '  - depends: nowhere', 'stray text'].join('\n');
    const error = validationError(() => parsePlanMarkdown(text));
    const lineOf = (part: string) => error.places[error.problems.findIndex((p) => p.includes(part))]?.span?.line;
    assert.equal(lineOf('outside any task'), 7);
    assert.equal(lineOf('unknown task "nowhere"'), 5, "a task's problem is on its task line");
    assert.equal(lineOf('tasks[1].description'), 5);
  });
});
