// The sessions of the in-VS-Code test run (scripts/vscode/runVsCodeTests.mjs). Each session is
// one VS Code window on a fresh workspace: its own server, browser, user settings and extension
// install, running the mocha test modules named in `suites` (registered in suite/index.ts).
//
// Fields:
//   name            unique; also TASKLOOM_TEST_SESSION and the prefix of its screenshots
//   description     one line for --list and the summary
//   extension       'development': the repository root is the extension under development;
//                   'vsix': taskloom.vsix (npm run package) is installed with --install-extension and
//                   the suite runs against that install (a stub extension takes the development slot)
//   suites          test module names from suite/index.ts (TASKLOOM_TEST_SUITES)
//   settings        user settings over the defaults in scripts/vscode/sessionSetup.mjs
//                   (which turn workspace trust off: set it to true for an untrusted window)
//   workspace       (root, {repoRoot, tmp, artifactsDir}) => the folder to open, made inside the
//                   empty folder `root` (fresh for every session); may be async
//   env             extra environment for the extension host (it inherits the server's), or a
//                   function of {tmp} (the session's temp folder, removed after it) returning it
//   timeoutSeconds  the whole session, server start to the suite's end (default 300)
//   onlyWhenNamed   run only when a filter names it (the benchmark, run by `npm run bench`)
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { cleanEnv } from '../../scripts/vscode/sessionSetup.mjs';
import { gitRepoFromFixture } from '../../scripts/vscode/workspaceFixtures.mjs';

const sampleRepo = (root) => gitRepoFromFixture('sample-repo', root);

/** The demo project with the suite's scripted agent (test/vscode/fixtures/makeDemoWorkspace.ts); `demo`: the demo's folder too. */
const demoWorkspace = (delayMs, mode, demo = '') => (root) => {
  const folder = join(root, 'textkit');
  const script = join(import.meta.dirname, 'fixtures', 'makeDemoWorkspace.ts');
  execFileSync(process.execPath, ['--import', 'tsx', script, folder, String(delayMs), mode, demo], { stdio: 'inherit' });
  return folder;
};

export const sessions = [
  {
    name: 'run',
    description: 'Start Goal → plan approval → Retry/Accept/Skip → run view, diff, Apply Integration, Problems',
    extension: 'development',
    suites: ['runFlow'],
    workspace: demoWorkspace(50, 'manual'),
    timeoutSeconds: 420,
  },
  {
    name: 'actions',
    description: 'only actions that work: stale notification buttons say what happened, tasks that need you are told, rows and the run view offer what applies, cancelled tasks read not started, a run paused on its failing base resumed by Treat as Advisory, one on a check of work still to be done by Keep as Required; a task taken over in a terminal and handed back; a task’s candidates side by side, another chosen on its card',
    extension: 'development',
    suites: ['actionsFlow', 'takeOverFlow', 'candidatesFlow'],
    workspace: demoWorkspace(50, 'manual'),
    timeoutSeconds: 420,
  },
  {
    name: 'problems',
    description: 'findings that open the branch file, read-only gate output, plan edits with a schema, walkthrough, keybindings, LM tools, @taskloom; Insights over its runs',
    extension: 'development',
    suites: ['problemsFlow', 'insightsFlow'],
    workspace: demoWorkspace(50, 'manual', 'demo'),
    timeoutSeconds: 480,
  },
  {
    name: 'bench',
    description: 'extension benchmark: activation, tree update latency, run view first paint (500 tasks, 50,000 events)',
    extension: 'development',
    suites: ['extensionBench'],
    workspace: (root) => {
      const folder = join(root, 'bench');
      execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'makeBenchWorkspace.ts'), folder], { stdio: 'inherit' });
      return folder;
    },
    timeoutSeconds: 600,
    onlyWhenNamed: true,
  },
  {
    name: 'transcript',
    description: 'a slow agent step: its transcript streams into the run view and its latest line into the task row; a reload shows it again',
    extension: 'development',
    suites: ['transcriptFlow'],
    workspace: (root) => {
      const folder = join(root, 'greeter');
      execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'makeTranscriptWorkspace.ts'), folder], { stdio: 'inherit' });
      return folder;
    },
    timeoutSeconds: 300,
  },
  {
    name: 'planning',
    description: 'planning that recovers: an incomplete task filled in from the plan review, a failed planning with Plan Again / Open Plan, a bad plan file at its problems, stopped runs offering what works, the sidebar loading after a reload',
    extension: 'development',
    suites: ['planningRecovery'],
    workspace: (root) => {
      const folder = join(root, 'textkit');
      execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'makePlanningWorkspace.ts'), folder], { stdio: 'inherit' });
      return folder;
    },
    timeoutSeconds: 600,
  },
  {
    name: 'resume',
    description: 'reload the window mid-run → the Resume notification → Resume finishes the run',
    extension: 'development',
    suites: ['resumeAfterReload'],
    workspace: demoWorkspace(1200, 'autopilot'),
    // Its own record of the runs created here, gone with the session's temp folder: the suite
    // empties it to make its run one Taskloom did not start.
    env: ({ tmp }) => ({ TASKLOOM_STATE_DIR: join(tmp, 'taskloom-resume-session-state') }),
    timeoutSeconds: 420,
  },
  {
    name: 'conflict',
    description: 'a merge conflict that waits for you: Needs You actions, the merge editor, Continue; Skip completes the rest',
    extension: 'development',
    suites: ['conflictFlow'],
    workspace: (root) => {
      const folder = join(root, 'strkit');
      execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'makeConflictWorkspace.ts'), folder], { stdio: 'inherit' });
      return folder;
    },
    timeoutSeconds: 360,
  },
  {
    name: 'pullRequest',
    description: 'Open Pull Request on a completed run → agents fix the failing CI check and the review → green; the PR row and the run view say so; Start Goal from GitHub Issue… (a picked issue, an outsider\'s confirmed)',
    extension: 'development',
    suites: ['pullRequestFlow', 'issueFlow'],
    workspace: pullRequestWorkspace,
    // The scripted GitHub's token (test/helpers/githubServer.ts): the window has no GitHub sign-in.
    env: { GITHUB_TOKEN: 'ghs_scripted_token_1234567890' },
    timeoutSeconds: 480,
  },
  {
    name: 'notify',
    description: 'Add Notification Target… (password box, secret storage, only secret:NAME in the settings); a run sends plan ready and its end to a webhook on loopback; Remove Notification Target…',
    extension: 'development',
    suites: ['notifyFlow'],
    workspace: demoWorkspace(50, 'manual'),
    timeoutSeconds: 420,
  },
  {
    name: 'smoke',
    description: 'the harness: workspace open, extension present and active, a screenshot',
    extension: 'development',
    suites: ['smoke'],
    workspace: sampleRepo,
    timeoutSeconds: 120,
  },
  {
    name: 'smoke-vsix',
    description: 'the smoke suite against taskloom.vsix installed into the server',
    extension: 'vsix',
    suites: ['smoke'],
    workspace: sampleRepo,
    timeoutSeconds: 120,
  },
  {
    name: 'harness',
    description: 'runner controls: palette, keyboard, clicks in notifications and webviews, reload',
    extension: 'development',
    suites: ['harness'],
    workspace: sampleRepo,
    timeoutSeconds: 180,
  },
  {
    name: 'untrusted',
    description: 'an untrusted workspace (restricted mode) with the installed extension',
    extension: 'vsix',
    suites: ['untrusted'],
    settings: { 'security.workspace.trust.enabled': true },
    workspace: sampleRepo,
    timeoutSeconds: 120,
  },
];

/**
 * Starts the pull request session's scripted GitHub (test/vscode/fixtures/pullRequestWorkspace.ts),
 * which lives as long as this runner, and returns the workspace it made. Its repositories are
 * made in `root` (its TMPDIR): they go with the session's temp folder, since the runner's end
 * kills it before it can clean up.
 */
async function pullRequestWorkspace(root, { addUserSettings }) {
  const script = join(import.meta.dirname, 'fixtures', 'pullRequestWorkspace.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // The window's record of created runs (cleanEnv's), so the run it made is one this machine started.
    env: { ...cleanEnv(), TMPDIR: root },
  });
  const [line] = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (l) => resolve([l]));
    child.once('exit', (code) => reject(new Error(`the scripted GitHub exited (${code}) before it was ready`)));
  });
  child.stdout.resume();
  const { folder, apiUrl } = JSON.parse(line);
  // taskloom.github.apiUrl is application-scoped: the user's settings name the scripted GitHub, the
  // workspace's own .vscode/settings.json names a decoy that must never be asked (pullRequestFlow).
  addUserSettings({ 'taskloom.github.apiUrl': apiUrl });
  return folder;
}
