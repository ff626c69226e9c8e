import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import * as z from 'zod';
import { readReportFile } from './reportFiles';

/** What mocha's configuration says about which files it runs. */
export interface MochaFileConfig {
  spec: string[];
  extension: string[];
  ignore: string[];
  recursive: boolean;
}

/** The configuration files mocha looks for, in its order, in cwd and each folder above. */
const RC_FILES = ['.mocharc.cjs', '.mocharc.js', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'];
const CONFIG_CAP_BYTES = 1024 * 1024;
const strings = z.union([z.string(), z.array(z.string())]).transform((value) => (Array.isArray(value) ? value : [value]));
const config = z.object({
  spec: strings.optional(),
  extension: strings.optional(),
  ignore: strings.optional(),
  exclude: strings.optional(),
  recursive: z.boolean().optional(),
});

/**
 * The file settings of mocha's `.mocharc.*` (found upwards from cwd, or named by `--config`) and
 * of package.json's `mocha` key. Undefined when a configuration is one Taskloom does not read
 * (JavaScript is code it would have to run; YAML has no parser among its dependencies) or is
 * malformed: then which files mocha runs is mocha's to know.
 */
export function readMochaFileConfig(cwd: string, options: { configFile?: string | false; packageFile?: string | false }): MochaFileConfig | undefined {
  const merged: MochaFileConfig = { spec: [], extension: [], ignore: [], recursive: false };
  const rc = options.configFile === false ? null : options.configFile ? resolve(cwd, options.configFile) : findUp(cwd, RC_FILES);
  const pkg = options.packageFile === false ? null : options.packageFile ? resolve(cwd, options.packageFile) : findUp(cwd, ['package.json']);
  for (const [file, pick] of [[rc, (data: unknown) => data], [pkg, (data: unknown) => (data as { mocha?: unknown } | undefined)?.mocha ?? {}]] as const) {
    if (file === null) continue;
    if (!/\.jsonc?$/.test(file)) return undefined;
    const text = readReportFile(file, CONFIG_CAP_BYTES);
    if (text === undefined) return undefined;
    const parsed = config.safeParse(pick(parseJsonc(text)));
    if (!parsed.success) return undefined;
    merged.spec.push(...(parsed.data.spec ?? []));
    merged.extension.push(...(parsed.data.extension ?? []));
    merged.ignore.push(...(parsed.data.ignore ?? []), ...(parsed.data.exclude ?? []));
    merged.recursive ||= parsed.data.recursive ?? false;
  }
  return merged;
}

function findUp(cwd: string, names: readonly string[]): string | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const found = names.find((name) => existsSync(join(dir, name)));
    if (found) return join(dir, found);
    if (dirname(dir) === dir) return null;
  }
}
