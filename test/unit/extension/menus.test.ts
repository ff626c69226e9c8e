import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { foldEvents } from '../../../src/engine/domain/projection';
import { runContextValue, taskContextValue } from '../../../src/extension/tree/contextValues';
import { EventBuilder } from '../../helpers/eventBuilder';
import { pausedOnBase } from '../../helpers/gateEvents';

interface Manifest {
  contributes: {
    commands: Array<{ command: string; title: string }>;
    menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
  };
}
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as Manifest;
const titleOf = (command: string) => manifest.contributes.commands.find((c) => c.command === command)?.title ?? command;

/**
 * The titles of the entries a row's context menu shows in `view`, as VS Code reads package.json's
 * `when` clauses: each is "(view == A || view == B) && viewItem =~ /…/" (or one view alone).
 */
function menuOf(view: string, contextValue: string): string[] {
  const titles = manifest.contributes.menus['view/item/context']!.flatMap(({ command, when = '' }) => {
    const clause = /^(?:\((.+)\)|(view == \S+)) && viewItem =~ \/(.+)\/$/.exec(when);
    assert.ok(clause, `a when clause of the form this test reads: ${when}`);
    const views = (clause[1] ?? clause[2]!).split(' || ').map((v) => v.replace('view == ', ''));
    return views.includes(view) && new RegExp(clause[3]!).test(contextValue) ? [titleOf(command)] : [];
  });
  return [...new Set(titles)];
}

describe('menus: a row offers what works on it, named for what it does', () => {
  it('a run that stopped mid-way offers "Resume Run" (that run), not "Resume Last Run"', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED');
    const state = foldEvents(b.events)!;
    const menu = menuOf('taskloom.runs', runContextValue({ status: state.status, driven: false, state, total: 2, unfinished: 2, planApproved: true }));
    assert.ok(menu.includes('Resume Run'), menu.join(', '));
    assert.ok(!menu.includes('Resume Last Run'));
    assert.ok(!menu.includes('Cancel Run'), 'nothing drives it to cancel');
    assert.deepEqual(menuOf('taskloom.runs', runContextValue({ status: state.status, driven: true, state, total: 2, unfinished: 2, planApproved: true })).filter((t) => /Resume|Cancel Run|Discard/.test(t)), ['Cancel Run']);
  });

  it('a run paused for a choice about its base offers the three answers, not a Resume that would only pause again', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    for (const body of pausedOnBase('a'.repeat(40))) b.add(body);
    const state = foldEvents(b.events)!;
    const menu = menuOf('taskloom.needsYou', runContextValue({ status: state.status, driven: false, state, total: 2, unfinished: 2, planApproved: true }));
    for (const answer of ['Treat Base Failures as Advisory and Resume', 'Keep Base Failures as Required and Resume', 'Cancel Run']) assert.ok(menu.includes(answer), `${answer}: ${menu.join(', ')}`);
    assert.ok(!menu.includes('Resume Run'), menu.join(', '));
    b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'required' });
    const chosen = foldEvents(b.events)!;
    const after = menuOf('taskloom.runs', runContextValue({ status: chosen.status, driven: false, state: chosen, total: 2, unfinished: 2, planApproved: true }));
    assert.ok(after.includes('Resume Run') && !after.some((t) => /Advisory|Required/.test(t)), `chosen: a plain Resume goes on: ${after.join(', ')}`);
  });

  it('a completed run applied, in a repository without a remote: no Apply, no Open Pull Request', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.add({ type: 'run_finished', status: 'completed', summary: 'done' });
    const completed = foldEvents(b.events)!;
    const fresh = menuOf('taskloom.runs', runContextValue({ status: 'completed', driven: false, state: completed, total: 2, unfinished: 0, planApproved: true, hasRemote: false }));
    assert.ok(fresh.includes('Apply Integration to Current Branch') && !fresh.includes('Open Pull Request'), fresh.join(', '));
    b.add({ type: 'run_applied', branch: 'main', commit: 'c'.repeat(40), history: 'merge', commits: 1 });
    const applied = menuOf('taskloom.needsYou', runContextValue({ status: 'completed', driven: false, state: foldEvents(b.events)!, total: 2, unfinished: 0, planApproved: true, hasRemote: true }));
    assert.ok(!applied.includes('Apply Integration to Current Branch'), applied.join(', '));
    assert.ok(applied.includes('Open Pull Request') && applied.includes('Show Integration Diff'), applied.join(', '));
  });

  it('a task whose actor failed before changing a file: Retry, Skip, its diff and worktree, no Accept; one skipped for its dependency: nothing', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/r/a', path: '/w/a', baseCommit: 'b'.repeat(40), fresh: true });
    b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
    b.move('b', 'DEPENDENCY_FAILED');
    const state = foldEvents(b.events)!;
    assert.deepEqual(menuOf('taskloom.runs', taskContextValue(state.tasks.a!)), ['Retry Task', 'Skip Task', 'Show Task Diff', 'Take Over Task', 'Open Task Worktree']);
    assert.deepEqual(menuOf('taskloom.needsYou', taskContextValue(state.tasks.b!)), []);
  });
});
