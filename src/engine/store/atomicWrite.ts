import fs from 'node:fs';
import path from 'node:path';

/** Writes through a temp file and a rename, so a reader never sees half a file. */
export function writeFileAtomic(file: string, content: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temp, content);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
