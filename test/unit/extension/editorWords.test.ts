import { commands, window, type ShownNotification } from '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import ts from 'typescript';
import { nextStepCommand } from '../../../src/cli/nextStepCommands';
import type { NextStep } from '../../../src/engine/domain/nextStep';
import { UnpublishedWorkError } from '../../../src/engine/deliver/discardRun';
import { forgeFor } from '../../../src/engine/deliver/pullRequests';
import { PlanningError } from '../../../src/engine/run/planner';
import { resolveConfinement } from '../../../src/engine/sandbox/confinement';
import { toResponseError } from '../../../src/engine/server/userError';
import { LogWriteError } from '../../../src/engine/store/eventLog';
import { RunNotFoundError } from '../../../src/engine/store/runStore';
import { BaselineChoiceNeededError } from '../../../src/engine/usecases/useCaseErrors';
import { decisionCommands, wordDecision } from '../../../src/engine/text/decisionWords';
import { inspectRepo } from '../../../src/engine/workspace/repoInspector';
import { nextStepButton } from '../../../src/extension/connection/nextStepButtons';
import { showError } from '../../../src/extension/connection/userErrors';
import { commandLineIn } from '../../helpers/commandLines';
import { makeTempRepo } from '../../helpers/tempRepo';

/** The value the command agent's setting takes is an argv, flags and all: an example of it is no command to type. */
const ARGV_SETTING_EXAMPLE = /^For example \["/;

const root = join(__dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'taskloom-editor-words-'));
after(() => rmSync(work, { recursive: true, force: true }));

async function thrownBy(body: () => unknown): Promise<unknown> {
  try {
    await body();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

/** Shows the error as a command's failure would (as the engine server answers it), choosing `choose`. */
async function shown(error: unknown, choose?: string): Promise<ShownNotification> {
  window.answer = (notice) => notice.items.find((item) => (item as { title: string }).title === choose);
  await showError('do it', toResponseError(error, 'taskloom/test', () => {}));
  return window.shown.at(-1)!;
}
const titles = (notice: ShownNotification) => notice.items.map((item) => (item as { title: string }).title);

beforeEach(() => {
  window.shown.length = 0;
  commands.executed.length = 0;
});

describe('the editor offers steps, not command lines', () => {
  it('every next step is a command line in the CLI and a button in the editor, or is the CLI’s alone', () => {
    const example: Record<NextStep['kind'], NextStep> = {
      resume: { kind: 'resume', runId: 'r1' },
      treatAsAdvisory: { kind: 'treatAsAdvisory', runId: 'r1', commands: ['npm run lint'] },
      keepAsRequired: { kind: 'keepAsRequired', runId: 'r1', commands: ['npm run lint'] },
      cancelRun: { kind: 'cancelRun', runId: 'r1' },
      apply: { kind: 'apply', runId: 'r1' },
      discardAnyway: { kind: 'discardAnyway', runId: 'r1' },
      listRuns: { kind: 'listRuns' },
      doctor: { kind: 'doctor' },
      keepPullRequestGreen: { kind: 'keepPullRequestGreen', runId: 'r1' },
      openPullRequest: { kind: 'openPullRequest', runId: 'r1' },
      startFromPlanFile: { kind: 'startFromPlanFile' },
      changeSetting: { kind: 'changeSetting', setting: 'sandboxMode', value: 'auto' },
      initRepository: { kind: 'initRepository' },
      trustRepository: { kind: 'trustRepository', path: '/srv/repo' },
      addRemote: { kind: 'addRemote' },
      fetchBranch: { kind: 'fetchBranch', remote: 'origin', branch: 'main' },
      mergeByHand: { kind: 'mergeByHand', source: 'taskloom/r1/integration' },
      nameRepository: { kind: 'nameRepository' },
      nameBaseBranch: { kind: 'nameBaseBranch' },
      allowConfigFile: { kind: 'allowConfigFile' },
    };
    // The editor asks "Discard Anyway?" itself, has no setting for a pull request's repository or base, and lets Workspace Trust decide what taskloom.json may run.
    const cliOnly = new Set<NextStep['kind']>(['discardAnyway', 'nameRepository', 'nameBaseBranch', 'allowConfigFile']);
    for (const step of Object.values(example)) {
      assert.ok(commandLineIn(nextStepCommand(step)), `${step.kind}: the CLI prints a command line (${nextStepCommand(step)})`);
      const button = nextStepButton(step);
      assert.equal(button === undefined, cliOnly.has(step.kind), step.kind);
      if (button) assert.ok(!commandLineIn(button.title) && button.command, `${step.kind}: ${button.title} runs ${button.command}`);
    }
    assert.equal(nextStepCommand(example.changeSetting), '--sandbox auto');
    assert.deepEqual(nextStepButton(example.changeSetting), { title: 'Open Settings', command: 'workbench.action.openSettings', args: ['taskloom.sandbox.mode'] });
  });

  it('the engine’s errors reach the editor in words with buttons, and the CLI’s command lines stay out', async () => {
    const plain = makeTempRepo();
    after(() => plain.cleanup());
    const cases: Array<{ error: unknown; buttons: string[] }> = [
      { error: new RunNotFoundError('20261129-071502-a1b2'), buttons: ['Show Runs'] },
      { error: new LogWriteError('/repo/.taskloom/runs/r1/events.jsonl', Object.assign(new Error('no space'), { code: 'ENOSPC' })), buttons: ['Resume'] },
      { error: new UnpublishedWorkError('r1', ['a']), buttons: ['Apply Integration…'] },
      { error: new PlanningError('Planning stopped: the run budget is spent', 'Raise the run budget, or start from a plan you write.', [{ kind: 'changeSetting', setting: 'budgets.runUsd' }, { kind: 'startFromPlanFile' }]), buttons: ['Open Settings', 'Start Goal…'] },
      { error: await thrownBy(() => resolveConfinement('on', 'darwin')), buttons: ['Open Settings'] },
      { error: await thrownBy(() => inspectRepo(work)), buttons: ['Initialize Repository'] },
      { error: await thrownBy(() => forgeFor(plain.dir, { remote: 'origin' })), buttons: ['Add Remote…'] },
      { error: new BaselineChoiceNeededError('r1', ['npm run lint'], true), buttons: ['Treat as Advisory', 'Keep as Required', 'Cancel Run'] },
    ];
    for (const { error, buttons } of cases) {
      const notice = await shown(error);
      assert.equal(commandLineIn(notice.text), undefined, `no command line in: ${notice.text}`);
      assert.deepEqual(titles(notice), buttons, notice.text);
    }
    // A button does what it says: here, Git's own Initialize Repository.
    await shown(cases[5]!.error, 'Initialize Repository');
    assert.deepEqual(commands.executed, [['git.init']]);
  });

  it('a snapshot in the run view’s ledger names no git command; DECISIONS.md keeps them for the terminal', () => {
    const snapshot = { fact: { type: 'actor_snapshot' as const, attempt: 2, commit: 'c'.repeat(40), ref: 'refs/taskloom/r1/a/attempt-2' }, taskId: 'a' };
    const words = wordDecision(snapshot);
    for (const line of [words.summary, ...words.details]) assert.equal(commandLineIn(line), undefined, line);
    assert.deepEqual(decisionCommands(snapshot), [`Restore, in the task worktree: git checkout ${'c'.repeat(40)} -- .`, `What changed since: git diff --stat ${'c'.repeat(40)}`]);
  });

  it('no text the extension or the run view shows, and no hint, reason or ledger word of the engine, is a command line', () => {
    const found = [
      ...literals('src/extension', () => true),
      ...literals('src/webview', () => true),
      ...literals('src/engine/text', () => true),
      ...literals('src/engine', userFacing),
    ].filter(({ text }) => commandLineIn(text) && !ARGV_SETTING_EXAMPLE.test(text));
    assert.deepEqual(found.map(({ where, text }) => `${where}: ${text}`), []);
  });
});

interface Literal {
  where: string;
  text: string;
}

/**
 * The string and template literals of the TypeScript files under `dir` that `keep` accepts, but
 * for argv (an array's elements) and module names. A template is read with `${}` for its holes.
 */
function literals(dir: string, keep: (node: ts.Node) => boolean): Literal[] {
  const found: Literal[] = [];
  for (const file of tsFiles(join(root, dir))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : ts.isTemplateExpression(node) ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('${}') : undefined;
      if (text !== undefined && !ts.isArrayLiteralExpression(node.parent) && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent) && keep(node)) {
        found.push({ where: `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`, text });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Error classes that are not the user's to read (a bug's, git's own): their words are not hints. */
const NOT_FOR_THE_USER = new Set(['Error', 'TypeError', 'RangeError', 'GitCommandError']);

/**
 * Where the engine words what a user reads: the arguments of a user-facing error (its message and
 * hint) and of `super(...)` in one, a task's transition reason and a run's pause reason, and a
 * watch's `next`.
 */
function userFacing(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at && !ts.isSourceFile(at); at = at.parent) {
    if (ts.isNewExpression(at) && ts.isIdentifier(at.expression)) return /Error$/.test(at.expression.text) && !NOT_FOR_THE_USER.has(at.expression.text);
    if (ts.isCallExpression(at)) {
      const callee = at.expression;
      if (callee.kind === ts.SyntaxKind.SuperKeyword) return true;
      if (ts.isPropertyAccessExpression(callee) && ['transition', 'pause'].includes(callee.name.text)) return true;
    }
    if (ts.isPropertyAssignment(at) && ts.isIdentifier(at.name) && ['hint', 'next', 'reason'].includes(at.name.text)) return true;
  }
  return false;
}
