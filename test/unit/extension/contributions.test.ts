import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { foldEvents } from '../../../src/engine/domain/projection';
import type { ActionableTask, RunFacts } from '../../../src/engine/domain/runActions';
import type { RunStatus } from '../../../src/engine/domain/runState';
import { RUN_STATUS_WORDS } from '../../../src/engine/domain/stateWords';
import { TASK_STATES } from '../../../src/engine/domain/taskStates';
import { COMMAND_IDS } from '../../../src/extension/commandIds';
import { contextValuesOf, pullRequestContextValue, runContextValue, taskContextValue, TREE_VIEWS } from '../../../src/extension/tree/contextValues';
import { EventBuilder } from '../../helpers/eventBuilder';
import { contributionProblems, type ManifestContributions, type Registered } from '../../helpers/manifestContributions';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as ManifestContributions;
const registered: Registered = {
  commands: COMMAND_IDS,
  contextValues: Object.fromEntries(Object.values(TREE_VIEWS).map((view) => [view, contextValuesOf(view)])),
};
const copy = (): ManifestContributions => structuredClone(manifest);

describe('package.json contributes the commands the extension registers, on rows the trees make', () => {
  it('every contributed command has a handler and every handler is contributed; every menu, keybinding and link names one; every menu matches rows its view has', () => {
    assert.deepEqual(contributionProblems(manifest, registered), []);
  });

  it('reports a contributed command nothing registers, and a registered one the manifest lacks', () => {
    const planted = copy();
    planted.contributes.commands.push({ command: 'taskloom.notRegistered', title: 'Not Registered', category: 'Taskloom', icon: '$(question)' });
    const problems = contributionProblems(planted, { ...registered, commands: [...COMMAND_IDS.filter((id) => id !== 'taskloom.doctor'), 'taskloom.onlyHandled'] });
    assert.deepEqual(problems.filter((p) => /notRegistered|onlyHandled|taskloom\.doctor is/.test(p)).sort(), [
      'taskloom.doctor is contributed but no handler is registered for it',
      'taskloom.notRegistered is contributed but no handler is registered for it',
      'taskloom.onlyHandled has a handler but package.json does not contribute it',
    ]);
  });

  it('reports a menu, a keybinding or a welcome link that names a command nobody registered', () => {
    const planted = copy();
    planted.contributes.menus['view/title']!.push({ command: 'taskloom.typo', when: 'view == taskloom.runs' });
    planted.contributes.keybindings!.push({ command: 'taskloom.gone' });
    (planted.contributes.viewsWelcome as Array<{ contents: string }>)[0]!.contents += '\n[Missing](command:taskloom.missing)';
    assert.deepEqual(
      contributionProblems(planted, registered).map((p) => /names (taskloom\.\w+)/.exec(p)?.[1]),
      ['taskloom.typo', 'taskloom.gone', 'taskloom.missing'],
    );
  });

  it('reports a menu on a context value no row sets: a misspelt action, a view without such rows, an unknown view', () => {
    const planted = copy();
    const rowMenu = planted.contributes.menus['view/item/context']!;
    rowMenu.push({ command: 'taskloom.cancelRun', when: 'view == taskloom.runs && viewItem =~ /^run\\..*\\.can-cancelRun/' });
    rowMenu.push({ command: 'taskloom.keepPullRequestGreen', when: 'view == taskloom.needsYou && viewItem =~ /^pullRequest\\.open/' });
    rowMenu.push({ command: 'taskloom.showRun', when: 'view == taskloom.runz && viewItem == run.completed' });
    assert.deepEqual(contributionProblems(planted, registered), [
      'menu view/item/context entry for taskloom.cancelRun: viewItem =~ /^run\\..*\\.can-cancelRun/ matches no context value a row of taskloom.runs can carry',
      'menu view/item/context entry for taskloom.keepPullRequestGreen: viewItem =~ /^pullRequest\\.open/ matches no context value a row of taskloom.needsYou can carry',
      'menu view/item/context entry for taskloom.showRun: view taskloom.runz is not contributed',
      'menu view/item/context entry for taskloom.showRun: viewItem == run.completed is for rows of taskloom.runz, whose rows set no context value',
    ]);
  });
});

describe('the context values listed for the menus check are the ones the builders make', () => {
  const runs = new Set(contextValuesOf(TREE_VIEWS.runs));
  const needsYou = new Set(contextValuesOf(TREE_VIEWS.needsYou));

  it('a run row of any status, driven or not, loaded or not, started again or not', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED');
    const loaded = foldEvents(b.events)!;
    for (const status of Object.keys(RUN_STATUS_WORDS) as RunStatus[]) {
      for (const driven of [false, true]) {
        for (const state of [undefined, { ...loaded, status }]) {
          const facts: RunFacts = { status, driven, state, total: 2, unfinished: 1, planApproved: state !== undefined, hasRemote: true };
          for (const startAgain of [undefined, { withPlan: true, rejectedPlan: false }, { withPlan: true, rejectedPlan: true }]) {
            const value = runContextValue(facts, startAgain);
            assert.ok(runs.has(value) && needsYou.has(value), value);
          }
        }
      }
    }
  });

  it('a task row in any state, with work or without, sent back or not; a pull request row in any state', () => {
    for (const state of TASK_STATES) {
      for (const sentBack of [false, true]) {
        const task: ActionableTask = {
          id: 't',
          state,
          changedFiles: sentBack ? ['a.ts'] : [],
          skippedByDependency: !sentBack,
          startedAt: '2026-01-01T00:00:00Z',
          branch: 'taskloom/r/t',
          worktreePath: '/w/t',
          ...(sentBack ? { queueProblem: { kind: 'conflict' as const, files: ['a.ts'] } } : {}),
        };
        assert.ok(runs.has(taskContextValue(task)) && needsYou.has(taskContextValue(task)), taskContextValue(task));
      }
    }
    for (const state of [undefined, 'open', 'merged', 'closed'] as const) assert.ok(runs.has(pullRequestContextValue(state)), state);
  });
});
