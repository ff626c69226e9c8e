import type { AccessLevel, RunnerInput } from '../runner';

export const CLAUDE_NOT_ON_PATH =
  '`claude` is not on PATH — install Claude Code (npm i -g @anthropic-ai/claude-code) or set taskloom.claude.path';

/** What to tell the user when the binary cannot be found (naming the configured path, if any). */
export function claudeNotFoundMessage(binaryPath: string | undefined): string {
  if (binaryPath === undefined || binaryPath === 'claude') return CLAUDE_NOT_ON_PATH;
  return `\`${binaryPath}\` (taskloom.claude.path) was not found — install Claude Code (npm i -g @anthropic-ai/claude-code) or fix taskloom.claude.path`;
}

/** The actor's tools; Bash is limited to its allowed commands by permission rules. */
export const WRITE_TOOLS = ['Read', 'Edit', 'Write', 'Glob', 'Grep', 'Bash'] as const;
/** The critic and the planner only look. */
export const READ_ONLY_TOOLS = ['Read', 'Glob', 'Grep'] as const;
/** Denied outright to a read-only call, on top of not being offered. */
export const READ_ONLY_DENIED_TOOLS = ['Edit', 'Write', 'Bash', 'NotebookEdit'] as const;

/**
 * Permission rules letting Bash run exactly these commands, alone or with more arguments
 * (`Bash(npm test)` and `Bash(npm test:*)`). Claude Code checks each part of a compound
 * command (`a && b`, `a; b`, pipes) on its own, so an allowed prefix does not carry another
 * command along. Commands holding characters that would end the rule are left out.
 */
export function bashRules(commands: readonly string[]): string[] {
  const usable = [...new Set(commands.map((c) => c.trim()))].filter((c) => c && !/[(),\n]/.test(c));
  return usable.flatMap((c) => [`Bash(${c})`, `Bash(${c}:*)`]);
}

/** Only the actor may write, and only when asked to: a critic or planner is read-only whatever it asks. */
export function accessFor(input: Pick<RunnerInput, 'role' | 'access'>): AccessLevel {
  return input.role === 'actor' && input.access === 'workspace-write' ? 'workspace-write' : 'read-only';
}

/** A short role brief appended to Claude Code's own system prompt. */
export function roleBrief(input: Pick<RunnerInput, 'role' | 'access'>): string {
  const readOnly = accessFor(input) === 'read-only';
  switch (input.role) {
    case 'actor':
      return readOnly
        ? 'You are the actor of a Taskloom task, in read-only mode: investigate and answer; you cannot change files.'
        : 'You are the actor of a Taskloom task. Make the requested change in the current working directory (a git worktree Taskloom owns): edit files and run the build and tests as needed. Do not commit, push, or switch branches — Taskloom commits your work, runs the project gate, and has a critic review the diff.';
    case 'critic':
      return 'You are the critic of a Taskloom task. Review the change read-only: you cannot edit files or run commands. Judge correctness, the requirements, test integrity, breakage and security; style is only a nit. Answer with the verdict in the requested format.';
    case 'planner':
      return 'You are the planner of a Taskloom run. Read the repository (read-only: you cannot edit files or run commands) and answer with the plan in the requested format.';
  }
}

export interface ClaudeArgsExtra {
  /** The id of a new conversation (ignored when resuming). */
  sessionId?: string;
  maxTurns?: number;
}

/**
 * The arguments of `claude` for a call. The prompt is NOT among them: it goes to stdin, as the
 * first user message of a stream-json conversation (claudeConversation.ts).
 *   -p --input-format stream-json --replay-user-messages
 *   --output-format stream-json --verbose --include-partial-messages [--model M]
 *   (--session-id <new uuid> | --resume <id>)
 *   --restricted --strict-mcp-config --permission-prompts none
 *   workspace-write: --permission-mode acceptEdits --tools Read,Edit,Write,Glob,Grep,Bash
 *                    --allowedTools Read,Glob,Grep,Bash(<allowed command>),Bash(<allowed command>:*)…
 *                    confined (inside Taskloom's sandbox): --allowedTools Read,Glob,Grep,Bash — any
 *                    command, as the sandbox, not a list, is what keeps it in its worktree
 *   read-only:       --permission-mode dontAsk --tools Read,Glob,Grep --allowedTools Read,Glob,Grep
 *                    --disallowedTools Edit,Write,Bash,NotebookEdit
 * --restricted confines the file tools to the working directory (the task's worktree) and
 * ignores the settings files, so a repository's own .claude/settings.json cannot widen the
 * rules or add hooks; --strict-mcp-config keeps its MCP servers out too. With nobody to answer
 * a prompt, whatever the rules do not allow (a command off the list, a write outside the
 * worktree) is refused and the agent is told so.
 *   --append-system-prompt <role brief> [--json-schema <schema>] [--max-turns N]
 * Partial messages make a long generation (a big file in one Write) visible to the watchdog.
 */
export function claudeArgs(
  input: Pick<RunnerInput, 'role' | 'access' | 'model' | 'resumeSessionId' | 'outputSchema' | 'allowedCommands' | 'confined'>,
  extra: ClaudeArgsExtra = {},
): string[] {
  const args = ['-p', '--input-format', 'stream-json', '--replay-user-messages', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
  if (input.model) args.push('--model', input.model);
  if (input.resumeSessionId) args.push('--resume', input.resumeSessionId);
  else if (extra.sessionId) args.push('--session-id', extra.sessionId);
  args.push('--restricted', '--strict-mcp-config', '--permission-prompts', 'none');
  if (accessFor(input) === 'workspace-write') {
    args.push(
      '--permission-mode',
      'acceptEdits',
      '--tools',
      WRITE_TOOLS.join(','),
      '--allowedTools',
      [...READ_ONLY_TOOLS, ...(input.confined ? ['Bash'] : bashRules(input.allowedCommands ?? []))].join(','),
    );
  } else {
    // dontAsk: anything not allowed here is denied, never prompted for (nobody could answer).
    args.push(
      '--permission-mode',
      'dontAsk',
      '--tools',
      READ_ONLY_TOOLS.join(','),
      '--allowedTools',
      READ_ONLY_TOOLS.join(','),
      '--disallowedTools',
      READ_ONLY_DENIED_TOOLS.join(','),
    );
  }
  args.push('--append-system-prompt', roleBrief(input));
  if (input.outputSchema) args.push('--json-schema', JSON.stringify(input.outputSchema));
  if (extra.maxTurns !== undefined) args.push('--max-turns', String(extra.maxTurns));
  return args;
}
