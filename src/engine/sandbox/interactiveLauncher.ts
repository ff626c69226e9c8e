import { spawn } from 'node:child_process';
import type { ProgramNeeds } from '../process/launcher';
import { resolveExecutable } from '../process/findOnPath';
import { probeBubblewrap } from './bubblewrap';
import { allowedEnvNames, filterEnv } from './envAllowList';
import { withSandboxedCommand } from './sandboxedCommand';
import { graceful, type SandboxContext, type TaskProcessRequest } from './taskLauncher';

export interface InteractiveLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  needs?: ProgramNeeds;
}

/** How a person's session ended: its exit, or why it never started (nothing ran). */
export type InteractiveEnd = { started: true; exitCode: number | null; signal: NodeJS.Signals | null } | { started: false; reason: string };

/**
 * Runs a program a person works in (an agent's own interactive session, a shell) on the terminal
 * this process has, confined exactly as the task's processes are (the same policy, environment
 * allow-list and egress proxy: taskLauncher.ts), and resolves when it ends. The terminal is
 * inherited, not piped. Confined, bubblewrap runs it in a new session (--new-session), so nothing
 * inside can push keystrokes into the person's terminal (TIOCSTI) for their shell to run after it;
 * it still dies with this process (--die-with-parent). Ctrl-C is the program's (a full-screen agent
 * reads it as a key): this process and bubblewrap ignore it while the session lasts.
 */
export async function launchInteractive(context: SandboxContext, request: TaskProcessRequest, launch: InteractiveLaunch): Promise<InteractiveEnd> {
  const env = filterEnv(launch.env, allowedEnvNames(request.agent, context.settings.env));
  const executable = resolveExecutable(launch.command, env.PATH);
  if (!executable) return { started: false, reason: `\`${launch.command}\` was not found on PATH` };
  if (!context.confinement.confined) return inTerminal(executable, launch.args, request.checkout, env);
  const bubblewrap = await probeBubblewrap();
  if (!bubblewrap.usable) return { started: false, reason: bubblewrap.reason };
  return withSandboxedCommand(context.settings, request, { command: [executable, ...launch.args], home: env.HOME, needs: launch.needs }, (sandboxed) => {
    const wrapped = graceful(bubblewrap.path, ['--new-session', ...sandboxed.bubblewrapArgs, '--'], sandboxed.argv);
    return inTerminal(wrapped.command, wrapped.args, request.checkout, { ...env, ...sandboxed.env }, true);
  });
}

/**
 * Starts the program on this process's terminal and waits for it. Not through the process layer's
 * runProcess: that gives each child a process group of its own and pipes, where a person's session
 * needs the terminal itself, in the terminal's foreground group. `statusPipe`: bubblewrap reports on
 * fd 3 once its command started; without that report the sandbox failed and nothing ran.
 */
async function inTerminal(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, statusPipe = false): Promise<InteractiveEnd> {
  const ignore = (): void => undefined;
  for (const signal of ['SIGINT', 'SIGQUIT'] as const) process.on(signal, ignore);
  try {
    // A person's session on their terminal (see above): the one process Taskloom starts with the terminal inherited.
    const child = spawn(command, args, { cwd, env, stdio: ['inherit', 'inherit', 'inherit', ...(statusPipe ? (['pipe'] as const) : [])] });
    let status = '';
    child.stdio[3]?.on('data', (chunk: Buffer) => (status += chunk.toString('utf8')));
    return await new Promise<InteractiveEnd>((resolve) => {
      child.once('error', (error) => resolve({ started: false, reason: `${command} could not start: ${error.message}` }));
      // 'close', not 'exit': the status pipe has been read to its end by then.
      child.once('close', (exitCode, signal) => {
        if (statusPipe && !/"child-pid"/.test(status)) resolve({ started: false, reason: `the sandbox did not start (bubblewrap ended with ${exitCode ?? signal})` });
        else resolve({ started: true, exitCode, signal });
      });
    });
  } finally {
    for (const signal of ['SIGINT', 'SIGQUIT'] as const) process.off(signal, ignore);
  }
}
