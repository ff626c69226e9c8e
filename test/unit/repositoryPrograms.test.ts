import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScopedConfig, programOverrides } from '../../src/engine/workspace/repositoryPrograms';

/** `git config -z --show-scope --show-origin --get-regexp` as git prints it. */
const listing = (...entries: Array<[scope: string, key: string, value: string]>) =>
  entries.map(([scope, key, value]) => `${scope}\0file:/${scope}.cfg\0${key}\n${value}\0`).join('');

test('programs the repository names are overridden; the user’s own (global, system) are kept', () => {
  const entries = parseScopedConfig(
    listing(
      ['system', 'credential.helper', 'cache'],
      ['global', 'credential.helper', 'store'],
      ['global', 'filter.lfs.clean', 'git-lfs clean -- %f'],
      ['local', 'credential.helper', '/tmp/steal'],
      ['local', 'filter.lfs.clean', '/tmp/evil'],
      ['worktree', 'filter.planted.process', '/tmp/evil'],
      ['local', 'merge.planted.driver', '/tmp/evil %A'],
      ['local', 'core.sshcommand', '/tmp/evil'],
      ['local', 'include.path', '/tmp/more.cfg'],
    ),
  );
  assert.deepEqual(programOverrides(entries), [
    // The list of helpers starts over with the user's and the machine's, in git's order.
    'credential.helper=',
    'credential.helper=cache',
    'credential.helper=store',
    'filter.lfs.clean=',
    'filter.lfs.clean=git-lfs clean -- %f',
    'filter.planted.process=',
    'merge.planted.driver=git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B',
    'core.sshcommand=ssh',
    // An emptied required filter would fail the command: the file passes unchanged instead.
    'filter.planted.required=false',
  ]);
});

test('programs only the user configured are left alone', () => {
  assert.deepEqual(programOverrides(parseScopedConfig(listing(['global', 'credential.helper', 'store'], ['global', 'diff.x.textconv', 'hexdump']))), []);
  assert.deepEqual(programOverrides(parseScopedConfig('')), []);
});
