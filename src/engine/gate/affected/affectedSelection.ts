import { counted } from '../../text/counted';

/** A package of a monorepo: its name (as other packages depend on it) and its folder, repo-relative. */
export interface WorkspacePackage {
  name: string;
  dir: string;
}

/** The packages of a monorepo, and which depends on which. */
export interface WorkspaceLayout {
  tool: 'npm' | 'pnpm' | 'yarn' | 'python' | 'go';
  /** The file that lists the packages (`package.json`, `pnpm-workspace.yaml`, `go.work`, a uv workspace's `pyproject.toml`); absent when each was found by its own manifest. */
  declaredIn?: string;
  packages: WorkspacePackage[];
  /** A package's name → the names of the layout's packages it depends on (every other one when its manifest cannot say, as a setup.py's). */
  dependsOn: Record<string, string[]>;
}

/** Why the full suite runs, or which part; `why` is one sentence a user reads in the gate result. */
export type AffectedSelection =
  | { kind: 'full'; why: string }
  /** Repo-relative test files, from the import graph; empty when the change can affect none. */
  | { kind: 'files'; testFiles: string[]; why: string }
  /** The packages the change touches and every package that depends on them; empty when nothing changed. */
  | { kind: 'packages'; packages: WorkspacePackage[]; why: string };

export const fullSuite = (why: string): AffectedSelection => ({ kind: 'full', why });

/** "src/util.js", "src/util.js and 2 more": the first changed file stands for the change. */
export function changeName(changed: readonly string[]): string {
  if (changed.length === 0) return 'no file changed';
  return changed.length === 1 ? changed[0]! : `${changed[0]} and ${changed.length - 1} more`;
}

/** "src/util.js and 2 more: 7 of 212 test files import them"; "test/a.test.js: the changed test files run themselves (1 of 212)". */
export function filesWhy(changed: readonly string[], changedTests: number, selected: number, total: number): string {
  if (changed.length > 0 && changedTests === changed.length) return `${changeName(changed)}: the changed test files run themselves (${selected} of ${total})`;
  return `${changeName(changed)}: ${selected} of ${counted(total, 'test file')} import ${changed.length === 1 ? 'it' : 'them'}`;
}

/** Repo-relative paths as git prints them: `/` separators, no leading `./`. */
export const repoPath = (path: string): string => path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');

const MODULE_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/;
/** A file the import graph reads for its imports (JavaScript or TypeScript); everything else is a leaf or data. */
export const isModulePath = (path: string): boolean => MODULE_EXTENSION.test(path);
