// What a command line to type looks like in text the editor shows: a Taskloom CLI command, a git
// command, or one of the CLI's flags. In the editor every such step is a button or a palette
// command instead (src/extension/connection/nextStepButtons.ts); the CLI alone prints them. (A
// project's own commands, such as a gate's `npm test --silent`, are facts, not steps: not matched.)
const CLI_FLAGS = [
  'actor-agent', 'actor-model', 'advisory', 'agent', 'agents-see-included-files', 'allow-command', 'allow-config', 'allow-host', 'base', 'budget-tokens', 'budget-usd',
  'claude-path', 'codex-path', 'command', 'copy', 'critic-agent', 'critic-model', 'cwd', 'dry-run', 'force', 'gate', 'gate-host', 'gate-timeout',
  'goal', 'hide-path', 'interval', 'keep-output', 'max-attempts', 'max-reviews', 'note', 'on-base-failure', 'overlap', 'parallel', 'pass-env', 'plan', 'planner-agent',
  'planner-model', 'probe', 'read-path', 'remote', 'repo', 'required', 'sandbox', 'script', 'sensitive-path', 'setup', 'setup-host', 'squash',
  'stuck-seconds', 'task-budget-tokens', 'task-budget-usd', 'timeout', 'trusted-bot', 'worktree-root', 'yes',
];
const COMMAND_LINE = [
  /\btaskloom (run|resume|cancel|gc|apply|discard|trace|doctor|pr|watch|runs|decide|demo|config)\b/,
  /\bgit (init|checkout|diff|merge|remote|fetch|status|config|worktree|add|commit|stash|reset|log|push|rebase)\b/,
  new RegExp(`(^|[\\s(\`'"])--(${CLI_FLAGS.join('|')})\\b`),
];

/** The first line of `text` that reads as a command line to type, if any. */
export function commandLineIn(text: string): string | undefined {
  return text.split('\n').find((line) => COMMAND_LINE.some((pattern) => pattern.test(line)));
}
