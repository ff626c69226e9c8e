import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unsupportedPlatformError } from '../../src/engine/domain/platform';
import { EXIT } from '../../src/engine/domain/taskloomError';

describe('platforms', () => {
  it('refuses native Windows with what works instead, as a setup problem (exit 2)', () => {
    const error = unsupportedPlatformError('win32')!;
    assert.match(error.message, /does not run on Windows itself/);
    assert.match(error.hint!, /WSL/);
    assert.equal(error.exitCode, EXIT.badInput);
  });

  it('lets Linux and macOS run', () => {
    assert.equal(unsupportedPlatformError('linux'), undefined);
    assert.equal(unsupportedPlatformError('darwin'), undefined);
  });
});
