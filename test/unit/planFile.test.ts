import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { PlanFileError, loadPlanFile, parsePlanMarkdown } from '../../src/engine/plan/loadPlanFile';
import { jsonErrorOffset } from '../../src/engine/text/jsonErrorWords';
import { validationError } from '../helpers/planErrors';
import { scratchFolder } from '../helpers/fileScoped';

const { dir, write: writePlan } = scratchFolder('plan');

const EXAMPLE = `# Goal: add rate limiting
The API has no protection against bursts.
Config comes first so the middleware can read it.

## Tasks

- [ ] config: Add limiter settings
  Read limits from the environment.

  Fall back to 100 req/min.
  - accept: defaults to 100 req/min
- [x] api: Add limiter middleware
  Wrap every route in the limiter:
    nested detail stays indented
  - accept: returns 429 after 100 req/min
  - Acceptance: sets Retry-After
  - depends: config, db
  - files: \`src/api.ts\`, src/lib/limit.ts
- [ ] db: Store counters
  Keep counters in the database.
  \`\`\`sql
  - depends: not-a-key
  \`\`\`
  - depends on: none
  - accept:
    - survives a restart
    - expires old windows
`;

describe('Markdown plans', () => {
  test('takes a task\'s own actor agent and model', () => {
    const plan = loadPlanFile(writePlan('agents.md', '# Goal: g\n- [ ] docs: Write the docs\n  The README.\n  - agent: codex\n  - model: `gpt-5-codex-mini`\n- [ ] code: Write the code\n  The code.\n'));
    assert.deepEqual(plan.tasks.map((t) => [t.id, t.agent, t.model]), [['docs', 'codex', 'gpt-5-codex-mini'], ['code', undefined, undefined]]);
  });

  test('parses goal, rationale, tasks, descriptions, accept, depends and files', () => {
    const plan = loadPlanFile(writePlan('plan.md', EXAMPLE));
    assert.deepEqual(plan, {
      goal: 'add rate limiting',
      rationale: 'The API has no protection against bursts.\nConfig comes first so the middleware can read it.',
      tasks: [
        {
          id: 'config',
          title: 'Add limiter settings',
          description: 'Read limits from the environment.\n\nFall back to 100 req/min.',
          acceptance: ['defaults to 100 req/min'],
          dependsOn: [],
        },
        {
          id: 'api',
          title: 'Add limiter middleware',
          description: 'Wrap every route in the limiter:\n  nested detail stays indented',
          acceptance: ['returns 429 after 100 req/min', 'sets Retry-After'],
          dependsOn: ['config', 'db'],
          files: ['src/api.ts', 'src/lib/limit.ts'],
        },
        {
          id: 'db',
          title: 'Store counters',
          description: 'Keep counters in the database.\n```sql\n- depends: not-a-key\n```',
          acceptance: ['survives a restart', 'expires old windows'],
          dependsOn: [],
        },
      ],
    });
  });

  test('a heading without "Goal:", space-separated depends, repeated keys and CRLF line ends', () => {
    const text = [
      '# Speed up the build',
      '- [ ] a: First',
      '  Do a.',
      '- [ ] b: Second',
      '  Do b.',
      '  - deps: a',
      '- [ ] c: Third',
      '\tDo c.',
      '\t- depends: a b',
      '\t- depends: b',
      '\t- file: x.ts',
      '\t- files: y.ts, x.ts',
    ].join('\r\n');
    const plan = parsePlanMarkdown(text);
    assert.equal(plan.goal, 'Speed up the build');
    assert.equal(plan.rationale, undefined);
    assert.deepEqual(
      plan.tasks.map((t) => [t.id, t.description, t.dependsOn, t.files]),
      [
        ['a', 'Do a.', [], undefined],
        ['b', 'Do b.', ['a'], undefined],
        ['c', 'Do c.', ['a', 'b'], ['x.ts', 'y.ts']],
      ],
    );
  });

  test('the same plan as JSON and as Markdown is the same Plan', () => {
    const md = loadPlanFile(writePlan('same.md', EXAMPLE));
    const json = loadPlanFile(writePlan('same.json', JSON.stringify(md, null, 2)));
    assert.deepEqual(json, md);
  });

  test('Markdown-level problems and plan problems are reported together, with the file name', () => {
    const path = writePlan(
      'broken.md',
      [
        'Some intro',
        '- [ ] just a title without id',
        '  its details are dropped with it',
        '- [ ] api: Add limiter',
        '  - depends: ghost',
        'stray text',
        '- [ ] feat/x: Bad id',
        '  Has a description.',
      ].join('\n'),
    );
    const error = validationError(() => loadPlanFile(path));
    assert.equal(error.source, path);
    assert.ok(error.message.startsWith(`Invalid plan in ${path} (6 problems):`), error.message);
    assert.deepEqual(error.problems, [
      'line 2: a task line needs "id: title", got "- [ ] just a title without id"',
      'line 6: "stray text" is outside any task; indent it by two spaces to make it part of the task above, or start a task with "- [ ] id: title"',
      'missing the goal: start the file with "# Goal: <what to achieve>"',
      'tasks[0].description (task "api"): must not be empty',
      'tasks[1].id: "feat/x" is not usable as a branch or folder name: contains a slash',
      'task "api" depends on unknown task "ghost"',
    ]);
  });

  test('a file without tasks says how to write one, once', () => {
    const error = validationError(() => parsePlanMarkdown('# Goal: nothing yet\n\nJust prose.\n', 'empty.md'));
    assert.deepEqual(error.problems, [
      'no tasks found: list each task as "- [ ] id: title" with its details indented below',
    ]);
  });

  test('a second goal heading is a problem', () => {
    const error = validationError(() => parsePlanMarkdown('# Goal: one\n- [ ] a: A\n  Do a.\n# Goal: two\n'));
    assert.deepEqual(error.problems, ['line 4: a second "# " heading; a plan file has one goal heading']);
  });
});

describe('JSON plans', () => {
  test('a valid file', () => {
    const plan = loadPlanFile(writePlan('ok.json', JSON.stringify({ goal: 'g', tasks: [{ id: 'a', title: 'A', description: 'D' }] })));
    assert.deepEqual(plan, { goal: 'g', tasks: [{ id: 'a', title: 'A', description: 'D', acceptance: [], dependsOn: [] }] });
  });

  test('a syntax error names the file, line and column', () => {
    const path = writePlan('trailing.json', '{\n  "goal": "g",\n}\n');
    const error = validationError(() => loadPlanFile(path));
    assert.equal(error.source, path);
    assert.deepEqual(error.problems, ['invalid JSON at line 3, column 1: Expected double-quoted property name']);
    assert.ok(error.message.includes(path));
  });

  test('a syntax error Node reports without a position still gets one', () => {
    const error = validationError(() => loadPlanFile(writePlan('token.json', '{\n  "goal": ,\n  "tasks": []\n}')));
    assert.deepEqual(error.problems, ['invalid JSON at line 2, column 11: Unexpected token \',\'']);
  });

  test('plan problems in a JSON file carry the file name', () => {
    const path = writePlan('bad.json', JSON.stringify({ goal: 'g', tasks: [] }));
    const error = validationError(() => loadPlanFile(path));
    assert.equal(error.source, path);
    assert.deepEqual(error.problems, ['tasks: a plan needs at least one task']);
  });

  test('jsonErrorOffset agrees with V8 wherever V8 gives a position', () => {
    const samples = ['{"a":1', '{"a" 1}', '{\n "a": 1,\n}', '[1,2', '{"a":"x\u0001"}', '{"a":tru}', '"abc'];
    let compared = 0;
    for (const text of samples) {
      let v8: number | undefined;
      assert.throws(
        () => JSON.parse(text),
        (err: Error) => {
          const at = /at position (\d+)/.exec(err.message);
          v8 = at ? Number(at[1]) : undefined;
          return true;
        },
        `sample parsed: ${text}`,
      );
      const ours = jsonErrorOffset(text);
      assert.ok(ours >= 0, `no error found in ${JSON.stringify(text)}`);
      if (v8 === undefined) continue;
      assert.equal(ours, v8, JSON.stringify(text));
      compared += 1;
    }
    assert.ok(compared > 0, 'V8 gave no position to compare with');
    for (const valid of ['{}', '[]', ' {"a": [1, -2.5e3, true, null, "\\u00e9\\n"]} ', '0']) {
      assert.equal(jsonErrorOffset(valid), -1, valid);
    }
  });
});

describe('unreadable plan files', () => {
  test('a missing file', () => {
    const path = join(dir, 'nope.md');
    assert.throws(() => loadPlanFile(path), (err: unknown) => {
      assert.ok(err instanceof PlanFileError);
      assert.equal(err.message, `Plan file not found: ${path}`);
      return true;
    });
  });

  test('a directory', () => {
    const path = join(dir, 'folder.json');
    mkdirSync(path);
    assert.throws(() => loadPlanFile(path), /Plan file is a directory/);
  });

  test('an unsupported extension', () => {
    assert.throws(() => loadPlanFile(writePlan('plan.yaml', 'goal: x')), (err: unknown) => {
      assert.ok(err instanceof PlanFileError);
      assert.match(err.message, /expected a \.json or \.md file/);
      return true;
    });
  });
});
