import '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunsController } from '../../../src/extension/runsController';
import { RunsModel } from '../../../src/extension/state/runsModel';
import { RunsTreeProvider, type RunsNode } from '../../../src/extension/tree/runsTreeProvider';
import { EventBuilder } from '../../helpers/eventBuilder';

const FOLDER = '/repo';

/** A tree over a model whose changes reach it when the test flushes them (one folder, no engine). */
function treeOf(...runs: EventBuilder[]) {
  const flushes: Array<() => void> = [];
  const model = new RunsModel((flush) => flushes.push(flush));
  const flush = () => flushes.splice(0).forEach((f) => f());
  const controller = {
    model,
    folders: () => [FOLDER],
    state: async (folder: string, runId: string) => model.run(folder, runId)?.state,
  } as unknown as RunsController;
  const tree = new RunsTreeProvider(controller);
  for (const run of runs) model.applyEvents(FOLDER, run.runId, run.events.slice());
  flush();
  return { tree, model, flush };
}

/** A run whose task a built once, failed its gate and is building again: two attempts, transitions. */
function builtRun(runId: string): EventBuilder {
  const b = new EventBuilder(runId);
  b.add({ type: 'plan_approved', by: 'human' });
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_FAILED', 'RETRY_BUILD');
  return b;
}

async function childOf(tree: RunsTreeProvider, parent: RunsNode | undefined, kind: RunsNode['kind']): Promise<RunsNode> {
  const child = (await tree.getChildren(parent)).find((n) => n.kind === kind);
  assert.ok(child, `a ${kind} row under ${parent?.id ?? 'the root'}`);
  return child;
}

describe('Runs tree', () => {
  it('getParent walks back up the rows getChildren handed out: transition → Transitions → task → run', async () => {
    const { tree } = treeOf(builtRun('run-1'));
    const run = await childOf(tree, undefined, 'run');
    const task = await childOf(tree, run, 'task');
    const attempts = (await tree.getChildren(task)).filter((n) => n.kind === 'attempt');
    assert.equal(attempts.length, 2, 'two attempts');
    const transitions = await childOf(tree, task, 'transitions');
    const [transition] = await tree.getChildren(transitions);
    assert.equal(transition?.kind, 'transition');

    assert.equal(tree.getParent(transition!), transitions, 'a transition sits in its task’s Transitions row');
    assert.equal(tree.getParent(transitions), task);
    for (const attempt of attempts) assert.equal(tree.getParent(attempt), task);
    assert.equal(tree.getParent(task), run);
    assert.equal(tree.getParent(run), undefined, 'one folder: runs are the roots');
  });

  it('rows of a run that went away leave the cache; rows of the runs that stay are kept', async () => {
    const { tree, model, flush } = treeOf(builtRun('gone'), builtRun('kept'));
    const [first, second] = await tree.getChildren();
    const byRun = new Map([first!, second!].map((n) => [n.kind === 'run' ? n.runId : '', n]));
    const keptTask = await childOf(tree, byRun.get('kept'), 'task');
    const goneTask = await childOf(tree, byRun.get('gone'), 'task');
    await tree.getChildren(goneTask);

    model.setRuns(FOLDER, [model.run(FOLDER, 'kept')!.summary]);
    flush();

    assert.equal(tree.taskNode(FOLDER, 'kept', 'a'), keptTask, 'the staying run’s rows are the same nodes');
    assert.notEqual(tree.taskNode(FOLDER, 'gone', 'a'), goneTask, 'the discarded run’s task row was dropped (asking again makes a new one)');
    assert.notEqual(tree.runNode(FOLDER, 'gone'), byRun.get('gone'));
    tree.dispose();
  });
});
