import { minimatch } from 'minimatch';

/**
 * Places where a change runs later, on the user's machine or in CI, outside any gate: CI
 * configuration, agent and editor configuration, git-hook managers, and the list of files copied
 * into every worktree. A task whose change touches one waits for a human unless the approved plan
 * named it (docs/security.md#sensitive-paths). Glob patterns against the path from the repository
 * root, dotfiles included, case ignored (on a case-insensitive file system `.GitHub/Workflows` is
 * the same folder).
 */
export const DEFAULT_SENSITIVE_PATHS: readonly string[] = [
  // CI
  '.github/workflows/**',
  '.github/actions/**',
  '.gitlab-ci.yml',
  '.gitlab/**',
  '.circleci/**',
  'azure-pipelines.yml',
  '.azure-pipelines/**',
  '**/Jenkinsfile',
  '.travis.yml',
  'bitbucket-pipelines.yml',
  '.buildkite/**',
  '.drone.yml',
  '.woodpecker.yml',
  '.woodpecker/**',
  'appveyor.yml',
  '.appveyor.yml',
  // Agents and editors (nested instruction files count: agents read them in subfolders too)
  '**/.claude/**',
  '**/.codex/**',
  '**/.cursor/**',
  '**/.vscode/**',
  '**/.idea/**',
  '**/.devcontainer/**',
  '**/AGENTS.md',
  '**/CLAUDE.md',
  '**/GEMINI.md',
  '**/.mcp.json',
  '**/.cursorrules',
  '**/.clinerules',
  '**/.windsurfrules',
  '.github/copilot-instructions.md',
  '*.code-workspace',
  '**/.envrc',
  // git-hook managers
  '**/.husky/**',
  '.pre-commit-config.yaml',
  '.githooks/**',
  '{.,}lefthook{,-local}.{yml,yaml,json,toml}',
  '.lefthook/**',
  '**/.lintstagedrc*',
  '**/lint-staged.config.*',
  '.simple-git-hooks.*',
  // What every new worktree gets copied into it
  '.worktreeinclude',
];

/** npm's scripts that run on install, pack or publish, without anyone asking for them by name. */
export const LIFECYCLE_SCRIPTS: readonly string[] = [
  'preinstall',
  'install',
  'postinstall',
  'preprepare',
  'prepare',
  'postprepare',
  'prepublish',
  'prepublishOnly',
  'publish',
  'postpublish',
  'prepack',
  'postpack',
  'dependencies',
];

/** A file of a change that needs a human: the pattern its path matched, or the lifecycle scripts it added, changed or removed. */
export interface SensitiveChange {
  path: string;
  pattern?: string;
  scripts?: string[];
}

const MATCH = { dot: true, nocase: true } as const;

/** The first of `patterns` that `path` matches, or undefined. */
export function sensitivePattern(path: string, patterns: readonly string[]): string | undefined {
  return patterns.find((pattern) => minimatch(path, pattern, MATCH));
}

/** Whether `path` is a package manifest, whose lifecycle scripts are compared rather than the file as a whole. */
export const isPackageManifest = (path: string): boolean => path === 'package.json' || path.endsWith('/package.json');

/**
 * The lifecycle scripts whose command differs between two versions of a package.json (null: the
 * file is absent). A manifest that does not parse counts as changing every lifecycle script it
 * may hold: what npm would run cannot be told.
 */
export function changedLifecycleScripts(before: string | null, after: string | null): string[] {
  const was = lifecycleScripts(before);
  const is = lifecycleScripts(after);
  if (was === undefined || is === undefined) return [...LIFECYCLE_SCRIPTS];
  return LIFECYCLE_SCRIPTS.filter((name) => was[name] !== is[name]);
}

function lifecycleScripts(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return {};
  try {
    const manifest = JSON.parse(text) as unknown;
    if (typeof manifest !== 'object' || manifest === null) return undefined;
    const scripts = (manifest as { scripts?: unknown }).scripts;
    if (scripts === undefined) return {};
    if (typeof scripts !== 'object' || scripts === null || Array.isArray(scripts)) return undefined;
    return Object.fromEntries(LIFECYCLE_SCRIPTS.map((name) => [name, JSON.stringify((scripts as Record<string, unknown>)[name])]));
  } catch {
    return undefined;
  }
}

/**
 * The changes still waiting for a human: those whose path is neither named by `released` (the
 * plan task's `sensitive` list, glob patterns like the setting's, and the paths a human accepted
 * before) nor matched by one of its patterns.
 */
export function unreleasedChanges(changes: readonly SensitiveChange[], released: readonly string[]): SensitiveChange[] {
  return changes.filter((c) => !released.some((r) => r === c.path || minimatch(c.path, r, MATCH)));
}

/** `path (what made it sensitive)`, for reasons and prompts. */
export function describeSensitiveChange(change: SensitiveChange): string {
  if (change.scripts) return `${change.path} (lifecycle scripts: ${change.scripts.join(', ')})`;
  return change.pattern ? `${change.path} (${change.pattern})` : change.path;
}
