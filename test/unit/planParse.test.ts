import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PlanValidationError, parsePlan } from '../../src/engine/plan/parsePlan';
import { taskIdProblems } from '../../src/engine/plan/planSchema';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Title of ${id}`,
  description: `Do ${id}`,
  ...extra,
});

const plan = (tasks: unknown[], extra: Record<string, unknown> = {}) => ({ goal: 'Ship it', tasks, ...extra });

function problemsOf(input: unknown): string[] {
  try {
    parsePlan(input);
  } catch (err) {
    assert.ok(err instanceof PlanValidationError, `expected PlanValidationError, got ${String(err)}`);
    return err.problems;
  }
  assert.fail('parsePlan accepted an invalid plan');
}

describe('parsePlan: valid plans', () => {
  test('fills defaults, trims strings and strips unknown keys', () => {
    const parsed = parsePlan({
      goal: '  add rate limiting ',
      extra: true,
      tasks: [
        { id: ' api ', title: ' Limiter ', description: 'Add it', priority: 'high' },
        task('db', { dependsOn: ['api', 'api'], acceptance: ['works'], files: ['a.ts', 'a.ts'] }),
      ],
    });
    assert.deepEqual(parsed, {
      goal: 'add rate limiting',
      tasks: [
        { id: 'api', title: 'Limiter', description: 'Add it', acceptance: [], dependsOn: [] },
        { id: 'db', title: 'Title of db', description: 'Do db', acceptance: ['works'], dependsOn: ['api'], files: ['a.ts'] },
      ],
    });
    assert.equal('extra' in parsed, false);
    assert.equal('priority' in parsed.tasks[0]!, false);
  });

  test('keeps a rationale, drops an empty one', () => {
    assert.equal(parsePlan(plan([task('a')], { rationale: ' because ' })).rationale, 'because');
    assert.equal('rationale' in parsePlan(plan([task('a')], { rationale: '   ' })), false);
  });

  test('accepts ids that are safe branch and folder names', () => {
    for (const id of ['a', 'API', '0day', 'v1.2', 'a_b-c', 'x'.repeat(48), 'integration-tests', 'Lock.js']) {
      assert.deepEqual(taskIdProblems(id), [], id);
      assert.equal(parsePlan(plan([task(id)])).tasks[0]!.id, id);
    }
  });
});

describe('parsePlan: shape problems name the path and the task', () => {
  test('missing goal', () => {
    assert.deepEqual(problemsOf({ tasks: [task('a')] }), ['goal: is required']);
  });

  test('empty goal', () => {
    assert.deepEqual(problemsOf(plan([task('a')], { goal: '   ' })), ['goal: must not be empty']);
  });

  test('missing description, even with acceptance present', () => {
    assert.deepEqual(problemsOf(plan([task('a'), { id: 'b', title: 'B', acceptance: ['x'] }])), [
      'tasks[1].description (task "b"): is required',
    ]);
  });

  test('a task\'s own actor agent must be one Taskloom drives', () => {
    assert.deepEqual(problemsOf(plan([task('a', { agent: 'gemini' }), task('b', { agent: 'codex', model: 'gpt-5-codex-mini' })])), [
      'tasks[0].agent (task "a"): must be one of claude, codex, command, scripted, not "gemini"',
    ]);
  });

  test('empty title', () => {
    assert.deepEqual(problemsOf(plan([task('a'), task('b'), task('c', { title: '' })])), [
      'tasks[2].title (task "c"): must not be empty',
    ]);
  });

  test('wrong types', () => {
    assert.deepEqual(
      problemsOf(plan([task('a', { title: 5, acceptance: 'yes', dependsOn: 'b', files: [1] }), task('b')])),
      [
        'tasks[0].title (task "a"): must be a string, not number',
        'tasks[0].acceptance (task "a"): must be a list of strings, not string',
        'tasks[0].dependsOn (task "a"): must be a list of strings, not string',
        'tasks[0].files[0] (task "a"): must be a string, not number',
      ],
    );
  });

  test('an empty acceptance criterion', () => {
    assert.deepEqual(problemsOf(plan([task('a', { acceptance: ['ok', ' '] })])), [
      'tasks[0].acceptance[1] (task "a"): must not be empty',
    ]);
  });

  test('missing id is named by index', () => {
    assert.deepEqual(problemsOf(plan([{ title: 'T', description: 'D' }])), ['tasks[0].id: is required']);
  });

  test('a task that is not an object', () => {
    assert.deepEqual(problemsOf(plan([task('a'), 'b'])), ['tasks[1]: must be a task object, not string']);
  });

  test('no tasks', () => {
    assert.deepEqual(problemsOf(plan([])), ['tasks: a plan needs at least one task']);
    assert.deepEqual(problemsOf({ goal: 'g' }), ['tasks: is required']);
  });

  test('not an object at all', () => {
    for (const input of [null, 'plan', 3, [task('a')]]) {
      const problems = problemsOf(input);
      assert.equal(problems.length, 1);
      assert.match(problems[0]!, /^plan: a plan must be an object/);
    }
  });
});

describe('parsePlan: task ids', () => {
  const cases: Array<[string, RegExp]> = [
    ['feat/limit', /contains a slash/],
    ['a\\b', /contains a slash/],
    ['add limiter', /contains whitespace/],
    ['a..b', /contains "\.\."/],
    ['refs.lock', /ends with "\.lock"/],
    ['REFS.LOCK', /ends with "\.lock"/],
    ['api.', /ends with "\."/],
    ['-api', /must start with a letter or digit/],
    ['.hidden', /must start with a letter or digit/],
    ['x'.repeat(49), /is 49 characters long \(at most 48\)/],
    ['a~b', /contains "~"/],
    ['a:b^c', /contains ":", "\^"/],
    ['integration', /reserved/],
    ['Integration', /reserved/],
  ];
  for (const [id, reason] of cases) {
    test(`rejects ${JSON.stringify(id.length > 20 ? `${id.slice(0, 8)}…(${id.length})` : id)}`, () => {
      const problems = problemsOf(plan([task(id)]));
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.ok(problems[0]!.startsWith(`tasks[0].id: ${JSON.stringify(id)} is not usable as a branch or folder name`), problems[0]);
      assert.match(problems[0]!, reason);
    });
  }
});

describe('parsePlan: graph problems', () => {
  test('duplicate ids name both places', () => {
    assert.deepEqual(problemsOf(plan([task('a'), task('b'), task('a')])), ['duplicate task id "a" (tasks[0], tasks[2])']);
  });

  test('ids differing only in case clash', () => {
    const [problem, ...rest] = problemsOf(plan([task('api'), task('API')]));
    assert.deepEqual(rest, []);
    assert.match(problem!, /^task ids "api", "API" differ only in letter case \(tasks\[0\], tasks\[1\]\)/);
  });

  test('unknown dependency', () => {
    assert.deepEqual(problemsOf(plan([task('api', { dependsOn: ['db'] })])), ['task "api" depends on unknown task "db"']);
  });

  test('unknown dependency with a case-only near miss', () => {
    assert.deepEqual(problemsOf(plan([task('db'), task('api', { dependsOn: ['DB'] })])), [
      'task "api" depends on unknown task "DB" (did you mean "db"?)',
    ]);
  });

  test('self dependency', () => {
    assert.deepEqual(problemsOf(plan([task('a', { dependsOn: ['a'] })])), ['task "a" depends on itself']);
  });

  test('a cycle is named in dependency order, starting from the first task in the plan', () => {
    const tasks = [task('a', { dependsOn: ['b'] }), task('b', { dependsOn: ['c'] }), task('c', { dependsOn: ['a'] }), task('d')];
    assert.deepEqual(problemsOf(plan(tasks)), ['dependency cycle: a → b → c → a (each task depends on the next)']);
  });

  test('two-task cycle and a separate cycle are both reported', () => {
    const tasks = [
      task('x', { dependsOn: ['y'] }),
      task('y', { dependsOn: ['x'] }),
      task('p', { dependsOn: ['q'] }),
      task('q', { dependsOn: ['r'] }),
      task('r', { dependsOn: ['p'] }),
    ];
    assert.deepEqual(problemsOf(plan(tasks)), [
      'dependency cycle: x → y → x (each task depends on the next)',
      'dependency cycle: p → q → r → p (each task depends on the next)',
    ]);
  });

  test('a tangle reports its shortest cycle and the other tasks caught in it', () => {
    const tasks = [task('a', { dependsOn: ['b'] }), task('b', { dependsOn: ['a', 'c'] }), task('c', { dependsOn: ['b'] })];
    assert.deepEqual(problemsOf(plan(tasks)), [
      'dependency cycle: a → b → a (each task depends on the next; also caught in it: c)',
    ]);
  });
});

describe('parsePlan: every problem at once', () => {
  test('shape, id, duplicate, dependency and cycle problems are reported together', () => {
    const input = {
      goal: '',
      tasks: [
        task('a', { dependsOn: ['c'] }),
        { id: 'b', title: '', dependsOn: ['a', 'b'] },
        task('c', { dependsOn: ['b', 'ghost'] }),
        task('feat/x'),
        task('a'),
        7,
      ],
    };
    const problems = problemsOf(input);
    assert.deepEqual(problems, [
      'goal: must not be empty',
      'tasks[1].title (task "b"): must not be empty',
      'tasks[1].description (task "b"): is required',
      'tasks[3].id: "feat/x" is not usable as a branch or folder name: contains a slash',
      'tasks[5]: must be a task object, not number',
      'duplicate task id "a" (tasks[0], tasks[4])',
      'task "b" depends on itself',
      'task "c" depends on unknown task "ghost"',
      'dependency cycle: a → c → b → a (each task depends on the next)',
    ]);
  });

  test('the error message counts and lists every problem', () => {
    let error: unknown;
    try {
      parsePlan(plan([task('a', { dependsOn: ['x'] }), task('b', { title: '' })]));
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof PlanValidationError);
    assert.equal(error.name, 'PlanValidationError');
    assert.equal(
      error.message,
      'Invalid plan (2 problems):\n  - tasks[1].title (task "b"): must not be empty\n  - task "a" depends on unknown task "x"',
    );
  });
});
