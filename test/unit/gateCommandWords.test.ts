import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simpleCommands } from '../../src/engine/gate/gateCommandWords';

const programs = (line: string) => simpleCommands(line)?.map((c) => c.argv[0]);

describe('simpleCommands (what the doctor looks for before a gate runs)', () => {
  it('splits a line into the programs it starts, quotes removed, assignments and redirections left out', () => {
    assert.deepEqual(programs('npm test && npm run lint'), ['npm', 'npm']);
    assert.deepEqual(simpleCommands('CI=1 NODE_OPTIONS="--max-old-space-size=4096" pytest -q 2>&1 | tee "out file.txt"'), [
      { argv: ['pytest', '-q'], dir: '' },
      { argv: ['tee', 'out file.txt'], dir: '' },
    ]);
    assert.deepEqual(programs("make test >/dev/null 2>&1; ./gradlew check || exit 1 # the slow part"), ['make', './gradlew', 'exit']);
    assert.deepEqual(simpleCommands("node --test 'test/**/*.test.js'"), [{ argv: ['node', '--test', 'test/**/*.test.js'], dir: '' }]);
  });

  it('follows `cd` into a folder of the repository, and stops following where only the shell knows', () => {
    assert.deepEqual(simpleCommands('cd web/ && cd ../api && npm t')?.map((c) => c.dir), ['', 'web', 'api']);
    assert.deepEqual(simpleCommands('cd $APP && make')?.[1]?.dir, null);
    assert.deepEqual(simpleCommands('cd .. && make')?.[1]?.dir, null);
  });

  it('gives up on more than simple commands: compound commands, substitutions, subshells, here-documents, open quotes', () => {
    for (const line of ['for f in *.js; do node $f; done', 'if true; then make; fi', 'echo $(date)', 'echo `date`', '(cd web && npm test)', 'cat <<EOF\nx\nEOF', "echo 'open"]) {
      assert.equal(simpleCommands(line), null, line);
    }
  });
});
