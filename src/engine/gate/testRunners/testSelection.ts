import type { TestRef } from './types';

/** The titles a full name `describe › test` is made of. */
export const titlesOf = (ref: TestRef): string[] => ref.name.split(' › ');

/** A file (or package) that failed as a whole: rerun whole, not by name. */
export const isWholeFile = (ref: TestRef): boolean => ref.file !== undefined && ref.id === ref.file;

/** The files the tests are in, each once; undefined when one has no file (then the runner's own files are kept). */
export function testFilesOf(tests: readonly TestRef[]): string[] | undefined {
  if (tests.some((test) => test.file === undefined)) return undefined;
  return [...new Set(tests.map((test) => test.file!))];
}

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A regular expression matching exactly these tests' full names as runners match a name
 * pattern (jest `-t`, vitest `-t`, mocha `--grep`, node 22 `--test-name-pattern`): the titles
 * joined by spaces. `leafToo` also matches the test's own title, as node 20 matches it.
 * Undefined when every test is a whole file.
 */
export function namePattern(tests: readonly TestRef[], options: { leafToo?: boolean } = {}): string | undefined {
  const names = new Set<string>();
  for (const test of tests) {
    if (isWholeFile(test)) continue;
    const titles = titlesOf(test);
    names.add(titles.join(' '));
    if (options.leafToo) names.add(titles.at(-1)!);
  }
  return names.size === 0 ? undefined : `^(?:${[...names].map(escapeRegExp).join('|')})$`;
}
