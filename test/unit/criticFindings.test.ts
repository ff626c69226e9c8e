import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../src/engine/domain/projection';
import { criticFindingsOf, repoRelativePath } from '../../src/engine/report/criticFindings';
import { EventBuilder } from '../helpers/eventBuilder';

describe('criticFindingsOf', () => {
  it('lists the file findings of each task’s latest verdict, with the verdict’s seq and whether they block', () => {
    const run = new EventBuilder();
    run.move('a', 'BUILD_STARTED');
    run.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/run-1/a', path: '/repo/.taskloom/worktrees/run-1/a', baseCommit: 'b'.repeat(40), fresh: true });
    run.move('a', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    const first = { file: 'src/x.ts', line: 3, severity: 'major', category: 'correctness', message: 'off by one' } as const;
    run.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict: { decision: 'changes_required', summary: 'no', findings: [first] }, blocking: 1 });
    run.move('a', 'CRITIC_CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    const findings = [
      { file: '/repo/.taskloom/worktrees/run-1/a/src/y.ts', severity: 'minor', category: 'style', message: 'name' },
      { file: './src/z.ts', line: 0, severity: 'major', category: 'security', message: 'leak' },
      { severity: 'nit', category: 'other', message: 'no file' },
      { file: '../outside.ts', severity: 'major', category: 'correctness', message: 'not ours' },
      { file: '/etc/passwd', severity: 'major', category: 'correctness', message: 'not ours either' },
    ] as const;
    const verdict = run.add({ type: 'critic_verdict', taskId: 'a', review: 2, verdict: { decision: 'changes_required', summary: 'still', findings: [...findings] }, blocking: 1 });

    assert.deepEqual(criticFindingsOf(foldEvents(run.events)!), [
      { taskId: 'a', seq: verdict.seq, file: 'src/y.ts', severity: 'minor', category: 'style', message: 'name', blocking: false },
      { taskId: 'a', seq: verdict.seq, file: 'src/z.ts', severity: 'major', category: 'security', message: 'leak', blocking: true },
    ]);
  });

  it('links each task’s findings to its own latest verdict, whatever the other tasks’ reviews came after it', () => {
    const run = new EventBuilder();
    run.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    run.move('b', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    const finding = (file: string) => ({ file, severity: 'major', category: 'correctness', message: 'wrong' }) as const;
    const review = (taskId: string, n: number, file: string) =>
      run.add({ type: 'critic_verdict', taskId, review: n, verdict: { decision: 'changes_required', summary: 'no', findings: [finding(file)] }, blocking: 1 });
    review('a', 1, 'a1.ts');
    run.move('a', 'CRITIC_CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    const latestOfA = review('a', 2, 'a2.ts');
    const latestOfB = review('b', 1, 'b1.ts');

    assert.deepEqual(
      criticFindingsOf(foldEvents(run.events)!).map((f) => [f.taskId, f.file, f.seq]),
      [
        ['a', 'a2.ts', latestOfA.seq],
        ['b', 'b1.ts', latestOfB.seq],
      ],
    );
  });

  it('makes paths relative to the repository, or drops them', () => {
    assert.equal(repoRelativePath('src\\a.ts', []), 'src/a.ts');
    assert.equal(repoRelativePath('/repo/src/a.ts', ['/repo/.taskloom/worktrees/r/t', '/repo']), 'src/a.ts');
    assert.equal(repoRelativePath('/repo/.taskloom/worktrees/r/t/b.ts', ['/repo/.taskloom/worktrees/r/t', '/repo']), 'b.ts');
    assert.equal(repoRelativePath('a/../../b', ['/repo']), undefined);
    assert.equal(repoRelativePath('C:/x', []), undefined);
    assert.equal(repoRelativePath('', []), undefined);
  });
});
