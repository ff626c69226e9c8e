import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, UsageError } from './cliErrors';
import { applyCommand } from './commands/apply';
import { cancelCommand } from './commands/cancel';
import { configCommand } from './commands/config';
import { decideCommand } from './commands/decide';
import { stopCommand } from './commands/stop';
import { chooseCommand } from './commands/choose';
import { takeOverCommand } from './commands/takeOver';
import { discardCommand } from './commands/discard';
import { demoCommand } from './commands/demo';
import { doctorCommand } from './commands/doctor';
import { gcCommand } from './commands/gc';
import { mcpCommand } from './commands/mcp';
import { prCommand } from './commands/pr';
import { watchCommand } from './commands/watch';
import { resumeCommand } from './commands/resume';
import { RUN_USAGE, runCommand } from './commands/run';
import { runsCommand } from './commands/runs';
import { statsCommand } from './commands/stats';
import { traceCommand } from './commands/trace';
import { sendCommand } from './commands/send';
import { exitWith } from './cliProcess';
import { unsupportedPlatformError } from '../engine/domain/platform';

const USAGE = `Taskloom: plans a goal into tasks and runs each through an actor, a gate and a critic in its own git worktree.

Usage:
  ${RUN_USAGE}
  taskloom resume [RUN_ID] [--yes] [--advisory | --required] [--notify URL]... [--cwd DIR]
                                                continue the last unfinished run (or RUN_ID); --yes: also one not started here;
                                                gate commands failing on the run's base where no test runner says which tests:
                                                --advisory: their failures fail no gate in this run;
                                                --required: checks of work still to be done, the tasks must make them pass
  taskloom cancel [RUN_ID]                      end a run nobody drives that waits for you (a plan, a choice about its base)
  taskloom retry TASK [--note TEXT] [--run ID]  give a task that needs you another try (the note goes to its agent), then continue
  taskloom accept TASK [--run ID]               accept a task's work as it is, then continue
  taskloom skip TASK [--run ID]                 drop a task (and what depends on it), then continue with the rest
  taskloom resolve TASK [--run ID]              resolve a merge conflict (or integration failure) yourself in the task's worktree
  taskloom continue TASK [--run ID]             after resolving by hand, or to hand back a task you stopped or took over:
                                                gate (and review) the result, merge it, continue
  taskloom choose TASK CANDIDATE [--note TEXT] [--run ID]
                                                take another of a task's candidates (docs/candidates.md) while it waits for you:
                                                it is gated, reviewed and merged instead of the critic's pick; the others stay on their branches
  taskloom stop TASK [--run ID]                 stop one task's agent (the rest of the run goes on): it waits for you;
                                                works from a second terminal while the run is driven
  taskloom take-over TASK [--run ID]            stop a task (if it runs) and work on it yourself, here: its agent's own session
                                                resumed in its worktree (a shell for agents without one), confined as the agent was
  taskloom send TASK "MESSAGE" [--run ID]       tell a running task's agent something, from any terminal while the run is driven:
                                                Claude Code hears it in the turn it works on, other agents in their next turn
  taskloom apply [RUN_ID] [--squash] [--yes]    land a completed run on your current branch (a merge commit, or one commit per task)
  taskloom discard [RUN_ID] [--yes] [--force]   remove a run's worktrees, branches and record (--force: even unapplied work)
  taskloom pr [RUN_ID] [--remote NAME] [--repo OWNER/REPO] [--base BRANCH] [--draft] [--stacked] [--allow-config]
                                                push a completed run and open (or update) its GitHub pull request
  taskloom watch [RUN_ID] [--once] [--interval S] [--timeout S] [--escalate-after MIN] [--auto-merge] [--trusted-bot LOGIN]... [--notify URL]... [--allow-config]
                                                keep the run's pull requests green until merged or closed: agents fix failing
                                                checks, reviews and conflicts (--once: until green; --escalate-after: minutes red
                                                before escalating, 0 never; --auto-merge: merge once green and approved by a writer)
  taskloom watch --pr NUMBER|URL [--remote NAME] [--repo OWNER/REPO] [run flags] [watch flags]
                                                keep your own pull request green: fixes pushed to its branch only (not a fork's)
  taskloom watch --issues LABEL [--once] [--interval S] [--remote NAME] [run flags] [watch flags] [--notify URL]...
                                                run the open issues with LABEL one at a time, each labelled by someone with write
                                                access (an outsider's label starts nothing; an issue with a run never runs twice):
                                                plan approved by the label, run within its budgets, pull request with Closes #N;
                                                between runs and polls, keep those pull requests green as watch RUN does (--once:
                                                only the issues)
  taskloom runs [--json]                        list the runs in this repository, with the disk their worktrees take
  taskloom gc [--yes] [--dry-run]               remove what finished runs left (worktrees, branches, refs); says what it freed
  taskloom trace [RUN_ID] [--json]              tasks, transitions with reasons, attempts, usage
  taskloom stats [--since DATE] [--run ID]... [--json]
                                                what the runs here cost and how they went: tasks merged, first-pass gate and
                                                critic send-back rates, your decisions, cost per merged task, by agent, model
                                                and role; failing gate commands and tests (docs/stats.md)
  taskloom doctor [--probe] [--allow-config] [run flags]
                                                check git, the repository, and the agents and gate a run with these flags uses,
                                                and say where each setting came from (flag, environment, taskloom.json, default)
                                                (--agent, --critic-agent codex…; --probe: one trivial call to each agent)
  taskloom config allow                         allow this repository's taskloom.json, as it is now, to set what starts programs
                                                (gate and setup commands, agent paths, sandbox keys…) on this machine; a change asks again
  taskloom demo [--dir DIR] [--delay MS]        a full run on a sample project, no API key needed
  taskloom mcp [--cwd DIR] [--print-config]     serve this repository to an MCP client (Claude Code, Codex, VS Code…) over stdio:
                                                start goals, approve plans, decide, apply, read runs; --print-config: the
                                                snippets that add it to each client

Settings: flags > TASKLOOM_<KEY> variables (TASKLOOM_MAX_PARALLEL=4, TASKLOOM_GATE_COMMANDS='["npm test"]') > taskloom.json
  at the repository's root (the editor's taskloom.* keys without "taskloom.") > defaults; --allow-config: allow the file (CI).
Notifications (run, resume, watch): --notify URL or TASKLOOM_NOTIFY='URL …' sends word when a plan is ready, a task needs
  you, a run ends, checks flip or a budget nears its end: webhook URL, Slack incoming webhook, ntfy://HOST/TOPIC (docs/notifications.md).

Exit codes: 0 all green and merged, 1 something needs a human (or was paused/cancelled), 2 bad usage, input or setup,\n  70 internal error (a bug in Taskloom), 74 the run's record could not be written or read (free space, then resume),\n  75 another Taskloom process is driving the workspace (try again once it is done).`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  run: runCommand,
  resume: resumeCommand,
  cancel: cancelCommand,
  retry: (argv) => decideCommand('retry', argv),
  accept: (argv) => decideCommand('accept', argv),
  skip: (argv) => decideCommand('skip', argv),
  resolve: (argv) => decideCommand('resolve', argv),
  continue: (argv) => decideCommand('continue', argv),
  stop: stopCommand,
  choose: chooseCommand,
  'take-over': takeOverCommand,
  send: sendCommand,
  apply: applyCommand,
  pr: prCommand,
  watch: watchCommand,
  discard: discardCommand,
  gc: gcCommand,
  runs: runsCommand,
  trace: traceCommand,
  stats: statsCommand,
  doctor: doctorCommand,
  config: configCommand,
  demo: demoCommand,
  mcp: mcpCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name ? EXIT.ok : EXIT.badInput;
  }
  if (name === '--version') {
    process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
    return EXIT.ok;
  }
  const unsupported = unsupportedPlatformError(process.platform);
  if (unsupported) throw unsupported;
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`Unknown command "${name}"`, 'Run `taskloom help` for the list.');
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${commandUsage(name)}\n`);
    return EXIT.ok;
  }
  return command(rest);
}

/** The lines of USAGE that describe one command: each of its forms (`watch`, `watch --pr`, `watch --issues`) and the continuation lines under them. */
function commandUsage(name: string): string {
  const lines = USAGE.split('\n');
  const isForm = (line: string) => line.trimStart().startsWith(`taskloom ${name} `) || line.trim() === `taskloom ${name}`;
  const start = lines.findIndex(isForm);
  if (start < 0) return USAGE;
  let end = start + 1;
  while (end < lines.length && ((/^ {6,}\S/.test(lines[end]!) && !lines[end]!.trimStart().startsWith('taskloom ')) || isForm(lines[end]!))) end++;
  return lines.slice(start, end).map((l) => l.replace(/^ {2}/, '')).join('\n');
}

exitWith(() => main(process.argv.slice(2)));
