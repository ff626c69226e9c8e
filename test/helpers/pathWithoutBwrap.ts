import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOOLS = ['git', 'sh', 'bash', 'env', 'node', 'npm', 'cat', 'mkdir', 'rm', 'ls', 'dirname', 'sed', 'uname', 'expr'];
const made: string[] = [];
process.on('exit', () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/**
 * A PATH holding the tools a run needs (git, node, a shell…) and no `bwrap`, as on a machine without
 * bubblewrap; `extra` adds executables of the test's own (a fake bwrap).
 */
export function pathWithoutBwrap(extra: Record<string, string> = {}): string {
  const bin = mkdtempSync(join(tmpdir(), 'taskloom-nobwrap-'));
  made.push(bin);
  for (const tool of TOOLS) {
    const found = execFileSync('sh', ['-c', `command -v ${tool} || true`], { encoding: 'utf8' }).trim();
    if (found) execFileSync('ln', ['-s', found, join(bin, tool)]);
  }
  for (const [name, body] of Object.entries(extra)) {
    writeFileSync(join(bin, name), body);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}
