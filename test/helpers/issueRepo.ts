import { rmSync } from 'node:fs';
import { after } from 'node:test';
import { startCli, writeInputs, type CliResult } from './cli';
import { OWNER, REPO, withGitHubOrigin } from './deliveryRepo';
import { startGitHubServer, type GitHubServer } from './githubServer';
import { makeTempRepo, type TempRepo } from './tempRepo';

/**
 * A repository whose `origin` is a scripted GitHub on loopback, for runs from its issues: the
 * scripted agents plan one task (`exclaim`, on greet.txt) unless given another scenario. The CLI
 * runs as a child process that does not block this one (the scripted GitHub answers from here).
 */

export const verdictGreen = { verdict: { decision: 'green', summary: 'fine', findings: [] } };
export const ISSUE_PLAN = { goal: 'x', tasks: [{ id: 'exclaim', title: 'End greetings with !', description: 'Add the mark', acceptance: [], dependsOn: [], files: ['greet.txt'] }] };
export const ISSUE_SCENARIO = {
  defaults: { delayMs: 0 },
  planner: [{ output: ISSUE_PLAN }],
  planReview: [verdictGreen],
  tasks: { exclaim: { actor: [{ write: { 'greet.txt': 'Hello!\n' } }], critic: [verdictGreen] } },
};

export interface IssueRepo {
  r: TempRepo;
  server: GitHubServer;
  /** The scripted agents' scenario file, and the environment that reaches the scripted GitHub. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** `taskloom run ARGS` with the scripted agents. */
  run(args: string[]): Promise<CliResult>;
  /** `taskloom COMMAND ARGS` in the repository, reaching the scripted GitHub (and the scripted agents, for commands that take --script). */
  cli(command: string, args?: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
  pr(args?: string[]): Promise<CliResult>;
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

export async function issueRepo(scenario: object = ISSUE_SCENARIO): Promise<IssueRepo> {
  const r = makeTempRepo({ files: { 'greet.txt': 'Hello\n' } });
  const bare = withGitHubOrigin(r);
  const server = await startGitHubServer({ owner: OWNER, repo: REPO, bareRepo: bare });
  cleanups.push(async () => {
    await server.close();
    r.cleanup();
    rmSync(bare, { recursive: true, force: true });
  });
  const script = writeInputs({ 'scenario.json': scenario })['scenario.json']!;
  const env = { GITHUB_TOKEN: server.token, GH_TOKEN: '', GITHUB_API_URL: server.url };
  const cli = (command: string, args: string[] = [], moreEnv: NodeJS.ProcessEnv = {}) => startCli([command, ...args, '--cwd', r.dir], { ...env, ...moreEnv }).done;
  return {
    r,
    server,
    script,
    env,
    run: (args) => cli('run', [...args, '--script', script, '--gate', 'true']),
    cli,
    pr: (args = []) => cli('pr', args),
  };
}

/** Taskloom's status comments on issue `number`, as they are now. */
export const taskloomComments = (server: GitHubServer, number: number) => server.commentsOn(number).filter((c) => c.body.includes('<!-- taskloom:issue-status'));
