import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecrets } from '../../src/engine/io/redactSecrets';

const NO_ENV = {};

describe('redactSecrets', () => {
  it('hides the values of secret-looking environment variables', () => {
    const env = { MY_API_KEY: 'k3y-value-123456', DB_PASSWORD: 'hunter2hunter2', GITHUB_TOKEN: 'abcdefgh12345678', HOME: '/home/someone' };
    const text = 'key=k3y-value-123456 pw hunter2hunter2 tok abcdefgh12345678 home /home/someone';
    assert.equal(redactSecrets(text, env), 'key=[REDACTED] pw [REDACTED] tok [REDACTED] home /home/someone');
  });

  it('leaves short values and non-secret names alone', () => {
    const env = { SHORT_SECRET: 'abc', PATH_TO_THING: 'visible-value-123' };
    assert.equal(redactSecrets('abc visible-value-123', env), 'abc visible-value-123');
  });

  it('hides the longer of two overlapping secrets whole', () => {
    const env = { A_TOKEN: 'secretvalue', B_TOKEN: 'secretvalue-extended' };
    assert.equal(redactSecrets('x secretvalue-extended y', env), 'x [REDACTED] y');
  });

  it('hides common token shapes', () => {
    const samples = [
      'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv',
      'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz',
      'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      'gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
      'AKIAIOSFODNN7EXAMPLE',
      'xoxb-123456789012-abcdefghijkl',
      'xoxp-123456789012-abcdefghijkl',
    ];
    for (const token of samples) {
      assert.equal(redactSecrets(`before ${token} after`, NO_ENV), 'before [REDACTED] after', token);
    }
  });

  it('hides bearer tokens and secret assignments but keeps the names', () => {
    assert.equal(redactSecrets('Authorization: Bearer abc.def-ghi_jkl', NO_ENV), 'Authorization: Bearer [REDACTED]');
    assert.equal(redactSecrets('password=hunter2 next', NO_ENV), 'password=[REDACTED] next');
    assert.equal(redactSecrets('DB_PASSWORD = "s3cr3t pass"', NO_ENV), 'DB_PASSWORD = "[REDACTED]"');
    assert.equal(redactSecrets('api_key: abc123, other: 1', NO_ENV), 'api_key: [REDACTED], other: 1');
    assert.equal(redactSecrets('{"apiKey": "abc123"}', NO_ENV), '{"apiKey": "[REDACTED]"}');
  });

  it('hides PEM private key blocks, even when cut off', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----';
    assert.equal(redactSecrets(`key:\n${pem}\ndone`, NO_ENV), 'key:\n[REDACTED]\ndone');
    assert.equal(redactSecrets('-----BEGIN PRIVATE KEY-----\nMIIEv', NO_ENV), '[REDACTED]');
  });

  it('leaves ordinary output alone', () => {
    const text = 'task-1234567890abcdefghij passed; the key idea: sort first. ✔ 12 tests, tokens: 300';
    assert.equal(redactSecrets(text, NO_ENV), text);
  });
});
