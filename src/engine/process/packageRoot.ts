import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder of Taskloom's own package.json. Code runs from dist/ (bundled) and from src/
 * (through tsx in tests), at different depths, so the root is found by walking up.
 */
export function findPackageRoot(from: string = moduleDir()): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (isTaskloomPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find the taskloom package root above ${from}`);
  }
}

function isTaskloomPackage(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name === 'taskloom';
  } catch {
    return false;
  }
}

// __dirname exists in the CommonJS bundle and under tsx (the package is not "type": "module").
const moduleDir = (): string => (typeof __dirname === 'string' ? __dirname : process.cwd());
