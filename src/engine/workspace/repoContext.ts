import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Git } from './git';
import { splitNul } from './gitQueries';

const MAX_FILES = 200;
const README_LINES = 40;

/** A short picture of the repository for the planner: its tracked files and the start of its README. */
export async function describeRepository(root: string): Promise<string> {
  const files = splitNul((await new Git(root).run(['ls-files', '-z'])).stdout);
  const listed = files.slice(0, MAX_FILES).join('\n');
  const more = files.length > MAX_FILES ? `\n… and ${files.length - MAX_FILES} more files` : '';
  const readme = ['README.md', 'README', 'readme.md'].map((name) => join(root, name)).find((p) => existsSync(p));
  const intro = readme ? `\n\nREADME (start):\n${readFileSync(readme, 'utf8').split('\n').slice(0, README_LINES).join('\n')}` : '';
  return `Tracked files (${files.length}):\n${listed}${more}${intro}`;
}
