import { existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { readReportFile } from './reportFiles';
import type { ShellWord } from './shellLine';

/** `npm test` and its kin: the script it runs, and the arguments npm appends to it. */
export interface ScriptCall {
  script: string;
  extraArgs: ShellWord[];
  /** The environment a package manager gives a script: its `node_modules/.bin` folders first on PATH. */
  env: Record<string, string>;
}

const MANAGERS = new Set(['npm', 'pnpm', 'yarn']);
const QUIET = new Set(['-s', '--silent', '-q', '--quiet']);
const TEST = new Set(['test', 't', 'tst']);
const RUN = new Set(['run', 'run-script']);
const PACKAGE_JSON_CAP_BYTES = 1024 * 1024;
const packageJson = z.object({ scripts: z.record(z.string(), z.unknown()).optional() });

/**
 * The script `npm test`, `npm run X`, `npm run-script X`, `pnpm test`, `yarn test` (or `run X`)
 * runs, read from package.json, one level deep. Undefined when the words are no such call; null
 * when they are one Taskloom does not follow: other npm options, pnpm or yarn arguments (each
 * passes them its own way), a pre or post script (npm runs them around it), Yarn Plug'n'Play (no
 * `node_modules/.bin` to put on PATH), a missing script.
 */
export function packageScriptCall(words: readonly ShellWord[], cwd: string, top: string): ScriptCall | null | undefined {
  const manager = words[0]?.text;
  if (manager === undefined || !MANAGERS.has(manager)) return undefined;
  const rest = words.slice(1);
  const dashes = rest.findIndex((word) => word.text === '--');
  const head = (dashes < 0 ? rest : rest.slice(0, dashes)).filter((word) => !QUIET.has(word.text)).map((word) => word.text);
  const extraArgs = dashes < 0 ? [] : rest.slice(dashes + 1);
  if (extraArgs.length > 0 && manager !== 'npm') return null;
  const name = head.length === 1 && TEST.has(head[0]!) ? 'test' : head.length === 2 && RUN.has(head[0]!) ? head[1]! : undefined;
  if (name === undefined) return null;
  if (manager === 'yarn' && (existsSync(join(cwd, '.pnp.cjs')) || existsSync(join(top, '.pnp.cjs')))) return null;
  const scripts = readScripts(cwd);
  const script = scripts?.[name];
  if (typeof script !== 'string' || script.trim() === '') return null;
  if (scripts![`pre${name}`] !== undefined || scripts![`post${name}`] !== undefined) return null;
  return { script, extraArgs, env: { PATH: [...binFolders(cwd), process.env.PATH ?? ''].join(delimiter) } };
}

function readScripts(cwd: string): Record<string, unknown> | undefined {
  const text = readReportFile(join(cwd, 'package.json'), PACKAGE_JSON_CAP_BYTES);
  if (text === undefined) return undefined;
  try {
    return packageJson.parse(JSON.parse(text)).scripts;
  } catch {
    return undefined;
  }
}

/** As npm puts them on PATH for a script: `node_modules/.bin` of the package and of every folder above it. */
function binFolders(cwd: string): string[] {
  const folders: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const bin = join(dir, 'node_modules', '.bin');
    if (existsSync(bin)) folders.push(bin);
    if (dirname(dir) === dir) return folders;
  }
}
