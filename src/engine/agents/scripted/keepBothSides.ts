// This runs inside the scripted agent, a process the run's launcher already confined: its git is the agent's, not Taskloom's.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The scripted agent's resolution when a scenario scripts none: every conflict keeps our lines,
 * then theirs (a diff3 base section is dropped). Asks git which files are unmerged, as an agent
 * would. Returns what it did, one line per file.
 */
export function keepBothSides(cwd: string): string[] {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^GIT_/i.test(k)));
  const listed = execFileSync('git', ['diff', '--name-only', '--diff-filter=U', '-z'], { cwd, env, encoding: 'utf8' });
  const files = [...new Set(listed.split('\0').filter(Boolean))];
  return files.map((file) => {
    const path = join(cwd, file);
    writeFileSync(path, unionOfConflicts(readFileSync(path, 'utf8')));
    return `kept both sides in ${file}`;
  });
}

export function unionOfConflicts(text: string): string {
  const out: string[] = [];
  let section: 'none' | 'ours' | 'base' | 'theirs' = 'none';
  for (const line of text.split('\n')) {
    if (section === 'none' && line.startsWith('<<<<<<<')) section = 'ours';
    else if (section === 'ours' && line.startsWith('|||||||')) section = 'base';
    else if ((section === 'ours' || section === 'base') && line === '=======') section = 'theirs';
    else if (section === 'theirs' && line.startsWith('>>>>>>>')) section = 'none';
    else if (section !== 'base') out.push(line);
  }
  return out.join('\n');
}
