/**
 * Where a run's processes may read, write and connect (`taskloom.sandbox.*`, `--sandbox`). Recorded
 * with the run's config, so a resume confines as the start did. The rules themselves are in
 * docs/security.md; src/engine/sandbox enforces them.
 */
export type SandboxMode = 'auto' | 'on' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'on', 'off'];

export interface SandboxSettings {
  /** auto: confined wherever the platform can; on: refuse to run unconfined; off: unconfined, by explicit choice. */
  mode: SandboxMode;
  /**
   * Hidden from every process even where it could otherwise read (`~` is the home folder). The home
   * folder is not visible anyway, except `readPaths` and an agent's own state folder: this list is
   * what stays hidden when a user widens those.
   */
  hiddenPaths: string[];
  /** Read-only folders besides the system's: toolchains installed in the home folder (those that exist). */
  readPaths: string[];
  /** `host:port` an agent process may reach besides its model API. */
  allowedHosts: string[];
  /** `host:port` setup commands may reach: the package registries a project installs from. */
  setupHosts: string[];
  /** `host:port` gate (and setup) commands may reach: a database or service the tests need. */
  gateHosts: string[];
  /** Names of environment variables passed to every process besides the allow-list (`NAME` or a prefix `NAME_*`). */
  env: string[];
  /** Agents see the files `.worktreeinclude` copies (`.env`); setup and gates always do. */
  agentsSeeIncludedFiles: boolean;
}

export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.config/gh',
  '~/.config/hub',
  '~/.config/git/credentials',
  '~/.git-credentials',
  '~/.netrc',
  '~/.docker',
  '~/.kube',
  '~/.gnupg',
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/.npmrc',
  '~/.yarnrc.yml',
  '~/.pypirc',
  '~/.gem/credentials',
  '~/.cargo/credentials.toml',
  '~/.terraform.d',
  '~/.vault-token',
  '/etc/ssh',
  '/etc/shadow',
  '/etc/gshadow',
];

export const DEFAULT_READ_PATHS: readonly string[] = [
  '~/.nvm',
  '~/.volta',
  '~/.fnm',
  '~/.local/bin',
  '~/.local/lib',
  '~/.local/share/pnpm',
  '~/.cargo/bin',
  '~/.rustup',
  '~/.pyenv',
  '~/.deno',
  '~/.bun/bin',
  '~/go/bin',
  '~/.sdkman/candidates',
  '~/.asdf',
];

export const DEFAULT_SETUP_HOSTS: readonly string[] = [
  'registry.npmjs.org:443',
  'registry.yarnpkg.com:443',
  'pypi.org:443',
  'files.pythonhosted.org:443',
  'index.crates.io:443',
  'static.crates.io:443',
  'proxy.golang.org:443',
  'sum.golang.org:443',
  'rubygems.org:443',
  'repo.maven.apache.org:443',
];

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  mode: 'auto',
  hiddenPaths: [...DEFAULT_HIDDEN_PATHS],
  readPaths: [...DEFAULT_READ_PATHS],
  allowedHosts: [],
  setupHosts: [...DEFAULT_SETUP_HOSTS],
  gateHosts: [],
  env: [],
  agentsSeeIncludedFiles: false,
};

/**
 * How a run's processes were started in one session of it (recorded as `confinement` each time a
 * session starts work): confined, and by what, or not, and why.
 */
export type Confinement =
  | { confined: true; mode: SandboxMode; mechanism: string }
  | { confined: false; mode: SandboxMode; reason: string };

/** A confinement as its event records it (one shape for both cases). */
export const confinementFacts = (c: Confinement): { mode: SandboxMode; confined: boolean; mechanism?: string; reason?: string } =>
  c.confined ? { mode: c.mode, confined: true, mechanism: c.mechanism } : { mode: c.mode, confined: false, reason: c.reason };
