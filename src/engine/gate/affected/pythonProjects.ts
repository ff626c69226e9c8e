import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as z from 'zod';
import { MAX_FILE_BYTES } from './repoFiles';

/**
 * Python's own TOML reader (tomllib, Python 3.11+), run isolated (`-I`: no PYTHON* variables,
 * no user site, not the repository's folder on sys.path), so nothing the repository holds chooses
 * what runs. Each file is read up to the cap; one that is not TOML reads as null.
 */
const READ_TOML = [
  'import json, sys, tomllib',
  'def read(path):',
  '    try:',
  `        with open(path, "rb") as f: return tomllib.loads(f.read(${MAX_FILE_BYTES}).decode("utf-8"))`,
  '    except Exception: return None',
  'json.dump([read(path) for path in sys.argv[1:]], sys.stdout, default=str)',
].join('\n');
const MAX_PROJECTS = 500;

const optionalText = z.string().optional().catch(undefined);
const table = z.record(z.string(), z.unknown()).optional().catch(undefined);
const strings = z.array(z.unknown()).catch([]).transform((items) => items.filter((item) => typeof item === 'string'));
const pyprojectSchema = z
  .object({
    project: z.object({ name: optionalText, dependencies: strings.optional(), 'optional-dependencies': z.record(z.string(), strings).catch({}).optional(), dynamic: strings.optional() }).optional().catch(undefined),
    'dependency-groups': z.record(z.string(), strings).catch({}).optional(),
    tool: z
      .object({
        poetry: z.object({ name: optionalText, dependencies: table, 'dev-dependencies': table, group: z.record(z.string(), z.object({ dependencies: table }).catch({})).catch({}).optional() }).optional().catch(undefined),
        uv: z.object({ sources: table, workspace: z.object({ members: strings.optional(), exclude: strings.optional() }).optional().catch(undefined) }).optional().catch(undefined),
      })
      .optional()
      .catch(undefined),
  })
  .catch({});

/** What the gate reads of a pyproject.toml: the package's name, what it depends on, and a uv workspace's members. */
export interface PythonProject {
  /** Normalised as pip compares names (PEP 503): `My_Pkg` is `my-pkg`. */
  name?: string;
  /** `unknown` when the dependencies are computed (`dynamic`) or the file declares no project. */
  dependencies: string[] | 'unknown';
  workspace?: { members: string[]; exclude: string[] };
}

/** The pyproject.toml of each folder (repo-relative); undefined when Python 3.11+ cannot be run to read them. */
export function readPythonProjects(root: string, dirs: readonly string[]): Map<string, PythonProject | undefined> | undefined {
  if (dirs.length > MAX_PROJECTS) return undefined;
  const paths = dirs.map((dir) => join(root, dir, 'pyproject.toml'));
  // Taskloom's own reading of data, not a task's process, so not confined: the machine's python3
  // (found on the engine's PATH, never the checkout's venv), isolated (-I: no cwd or user site on
  // sys.path, no PYTHON* variables), parses the files with tomllib and runs nothing of the repository.
  const run = spawnSync('python3', ['-I', '-c', READ_TOML, ...paths], { encoding: 'utf8', timeout: 30_000, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  let read: unknown;
  try {
    read = run.status === 0 ? JSON.parse(run.stdout) : undefined;
  } catch {
    return undefined;
  }
  if (!Array.isArray(read) || read.length !== dirs.length) return undefined;
  return new Map(dirs.map((dir, index) => [dir, read[index] === null ? undefined : pythonProject(read[index])]));
}

function pythonProject(toml: unknown): PythonProject {
  const { project, 'dependency-groups': groups, tool } = pyprojectSchema.parse(toml);
  const poetry = tool?.poetry;
  const name = project?.name ?? poetry?.name;
  const poetryTables = [poetry?.dependencies, poetry?.['dev-dependencies'], ...Object.values(poetry?.group ?? {}).map((group) => group.dependencies)];
  const declared = project
    ? [...(project.dependencies ?? []), ...Object.values(project['optional-dependencies'] ?? {}).flat()]
    : poetryTables.flatMap((dependencies) => Object.keys(dependencies ?? {}));
  const computed = project?.dynamic?.includes('dependencies') || (!project && !poetry);
  const dependencies = [...declared, ...Object.values(groups ?? {}).flat(), ...Object.keys(tool?.uv?.sources ?? {})].map(requirementName).filter((n) => n !== undefined);
  const members = tool?.uv?.workspace?.members;
  return {
    ...(name ? { name: normalisedName(name) } : {}),
    dependencies: computed ? 'unknown' : dependencies,
    ...(members ? { workspace: { members, exclude: tool?.uv?.workspace?.exclude ?? [] } } : {}),
  };
}

/** The distribution a requirement names: `alpha[extra]>=1.0; python_version>"3.8"` → `alpha`. */
function requirementName(requirement: string): string | undefined {
  const name = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/.exec(requirement)?.[1];
  return name && normalisedName(name);
}

export const normalisedName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');
