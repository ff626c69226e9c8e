import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { makeTempRepo, type TempRepo } from './tempRepo';

// Temp folders and repositories that live as long as a test file's tests: call these at the top
// level of the file, and they are removed after its last test.

export interface ScratchFolder {
  readonly dir: string;
  /** Writes `text` to the file `name` in the folder; returns its path. */
  write(name: string, text: string): string;
}

export function scratchFolder(name: string): ScratchFolder {
  const dir = mkdtempSync(join(tmpdir(), `taskloom-${name}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    write: (file, text) => {
      const path = join(dir, file);
      writeFileSync(path, text);
      return path;
    },
  };
}

/** A maker of temp repositories (see makeTempRepo), each committed with `files`. */
export function tempRepos(): (files?: Record<string, string>) => TempRepo {
  const made: TempRepo[] = [];
  after(() => made.forEach((r) => r.cleanup()));
  return (files) => {
    const r = makeTempRepo(files ? { files } : {});
    made.push(r);
    return r;
  };
}
