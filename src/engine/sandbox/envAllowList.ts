import type { AgentKind } from '../domain/runConfig';

/**
 * What a task's processes find in their environment: an allow-list, never the engine's whole
 * environment, which holds forge tokens and cloud keys. A name is either exact (`PATH`) or a prefix
 * ending in `*` (`LC_*`).
 */
const EVERY_PROCESS: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TASKLOOM_*',
  // Where toolchains live, so that what the project builds with is found as outside.
  'JAVA_HOME',
  'GOROOT',
  'GOPATH',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'PYENV_ROOT',
  'NVM_DIR',
  'NVM_BIN',
  'VOLTA_HOME',
  'PNPM_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
  // A machine's own certificate authorities (a company proxy), without which TLS fails.
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
];

/** An agent's own credential and settings, for that agent's process only. */
const AGENT_OWN: Record<AgentKind, readonly string[]> = {
  claude: ['ANTHROPIC_*', 'CLAUDE_*'],
  codex: ['OPENAI_*', 'CODEX_*'],
  command: [],
  scripted: [],
};

const matches = (name: string, pattern: string): boolean => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** The names a process of this kind may see: every process's, the agent's own (for an agent), and the user's additions. */
export function allowedEnvNames(agent: AgentKind | undefined, extra: readonly string[]): readonly string[] {
  return [...EVERY_PROCESS, ...(agent ? AGENT_OWN[agent] : []), ...extra];
}

/** `env` with only the allowed names. */
export function filterEnv(env: NodeJS.ProcessEnv, allowed: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && allowed.some((pattern) => matches(name, pattern))) kept[name] = value;
  }
  return kept;
}
