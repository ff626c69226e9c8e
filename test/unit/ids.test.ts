import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ID_MAX_LENGTH } from '../../src/engine/domain/ids';
import { taskIdProblems } from '../../src/engine/plan/planSchema';
import { newRunId } from '../../src/engine/run/runId';
import { isValidRunId } from '../../src/engine/store/paths';
import { WorktreeManager } from '../../src/engine/workspace/worktreeManager';
import { makeTempRepo } from '../helpers/tempRepo';


describe('ids: the plan, the store and the worktrees apply one rule', () => {
  const temp = makeTempRepo();
  after(() => temp.cleanup());
  const repo = { root: temp.dir, gitCommonDir: join(temp.dir, '.git') };

  it('a task id the plan accepts names a branch and a worktree; one the plan refuses names neither', () => {
    const worktrees = new WorktreeManager(repo, newRunId());
    const longest = `t${'x'.repeat(ID_MAX_LENGTH.task - 1)}`;
    for (const id of ['word-count', 'v1.2_fix', longest]) {
      assert.deepEqual(taskIdProblems(id), [], id);
      assert.match(worktrees.taskBranch(id), new RegExp(`/${id.replaceAll('.', '\\.')}$`));
    }
    for (const id of [`${longest}x`, 'a..b', 'fix.lock', 'ends.', '-dash', 'a/b']) {
      assert.notDeepEqual(taskIdProblems(id), [], id);
      assert.throws(() => worktrees.taskPath(id), /Invalid task id/, id);
    }
  });

  it('a run id Taskloom makes is valid for the store and the worktrees; one over the limit is refused by both', () => {
    const runId = newRunId();
    assert.ok(isValidRunId(runId));
    assert.doesNotThrow(() => new WorktreeManager(repo, runId));
    const tooLong = `r${'x'.repeat(ID_MAX_LENGTH.run)}`;
    assert.equal(isValidRunId(tooLong), false);
    assert.throws(() => new WorktreeManager(repo, tooLong), /Invalid run id/);
    assert.equal(isValidRunId('../etc'), false);
  });
});
