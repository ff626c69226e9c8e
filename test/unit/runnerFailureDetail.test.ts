import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureDetail, type RunnerResult } from '../../src/engine/agents/runner';
import { ZERO_USAGE } from '../../src/engine/domain/usage';
import { describeFailure } from '../../src/engine/session/agentCall';

const failed = (over: Partial<RunnerResult>): RunnerResult => ({ status: 'crashed', text: '', usage: { ...ZERO_USAGE }, model: 'm', durationMs: 1, ...over });

describe('a failed call words its reason and the agent last output in one place', () => {
  it('appends the last output, or says there was none', () => {
    assert.equal(failureDetail({ error: 'it exited with code 3', lastOutput: 'boom\nbang' }), 'it exited with code 3; last output:\nboom\nbang');
    assert.equal(failureDetail({ error: 'it exited with code 3', lastOutput: '' }), 'it exited with code 3 (no output)');
    assert.equal(failureDetail({ error: 'it exited with code 3' }), 'it exited with code 3');
  });

  it('a stuck agent: the stuck threshold, then only what it last printed', () => {
    const stuck = failed({ status: 'idle_timeout', error: 'no activity for 5000 ms; x was stopped', cause: 'stuck', lastOutput: 'thinking…' });
    assert.equal(describeFailure('actor', stuck, 5), 'actor showed no activity for 5s and was stopped; last output:\nthinking…');
    assert.equal(describeFailure('actor', { ...stuck, lastOutput: '' }, 5), 'actor showed no activity for 5s and was stopped');
  });

  it('any other failure: its status words, its error and its last output', () => {
    assert.equal(
      describeFailure('critic', failed({ error: 'x exited with code 2', cause: 'exited', lastOutput: 'fatal' }), 5),
      'critic failed (the agent crashed): x exited with code 2; last output:\nfatal',
    );
  });
});
