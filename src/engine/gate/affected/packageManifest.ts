import * as z from 'zod';
import { parseJsonAs } from '../../io/parseJsonAs';
import { readRepoFile } from './repoFiles';

const text = z.string().optional().catch(undefined);
const names = z.record(z.string(), z.unknown()).optional().catch(undefined);
/** A field that is not what npm expects reads as absent: a manifest is the repository's data, not ours. */
const manifestSchema = z.object({
  name: text,
  main: text,
  module: text,
  exports: z.unknown().optional(),
  imports: z.unknown().optional(),
  packageManager: text,
  workspaces: z.union([z.array(z.string()), z.object({ packages: z.array(z.string()).optional().catch(undefined) })]).optional().catch(undefined),
  dependencies: names,
  devDependencies: names,
  peerDependencies: names,
  optionalDependencies: names,
});

/** What the gate reads of a package.json: its entry points, its workspaces and the names it depends on. */
export interface PackageManifest {
  name?: string;
  main?: string;
  module?: string;
  exports?: unknown;
  imports?: unknown;
  packageManager?: string;
  /** `workspaces` as npm (an array) or yarn 1 (`{ packages }`) writes it. */
  workspaces?: string[];
  /** Every package it depends on, dev, peer and optional included. */
  dependencyNames: string[];
}

/** The package.json in `dir` (repo-relative), or undefined when there is none or it is not JSON. */
export function readPackageManifest(root: string, dir: string): PackageManifest | undefined {
  const source = readRepoFile(root, dir ? `${dir}/package.json` : 'package.json');
  if (source === undefined) return undefined;
  const parsed = parseJsonAs(manifestSchema, source);
  if (!parsed) return undefined;
  const { workspaces, dependencies, devDependencies, peerDependencies, optionalDependencies, ...rest } = parsed;
  const dependencyNames = [dependencies, devDependencies, peerDependencies, optionalDependencies].flatMap((group) => Object.keys(group ?? {}));
  return { ...rest, dependencyNames, ...(workspaces ? { workspaces: Array.isArray(workspaces) ? workspaces : (workspaces.packages ?? []) } : {}) };
}
