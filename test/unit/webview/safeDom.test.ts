import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decisionTone } from '../../../src/webview/runView/stateStyle';

const WEBVIEW = join(import.meta.dirname, '../../../src/webview');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('webview code', () => {
  it('never parses strings as HTML or code, and never sets inline styles by attribute', () => {
    const banned = [/\.innerHTML\b/, /\.outerHTML\b/, /insertAdjacentHTML/, /document\.write/, /\beval\(/, /new Function\(/, /setAttribute\(\s*['"]style['"]/, /createContextualFragment/, /DOMParser/];
    const offences = sources(WEBVIEW).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return banned.filter((re) => re.test(text)).map((re) => `${file}: ${re}`);
    });
    assert.deepEqual(offences, []);
  });

  it('colours ledger entries by outcome', () => {
    assert.equal(decisionTone({ kind: 'gate', summary: 'Gate failed: `npm test` exited 1 on attempt 1' }), 'red');
    assert.equal(decisionTone({ kind: 'gate', summary: 'Gate passed (npm test --failed-only) on attempt 2' }), 'green');
    assert.equal(decisionTone({ kind: 'integration', summary: 'Integration gate failed: `make` exited 2' }), 'red');
    assert.equal(decisionTone({ kind: 'critic', summary: 'Critic review 2: green — changes required earlier are done' }), 'green');
    assert.equal(decisionTone({ kind: 'critic', summary: 'Critic review of plan draft 1: changes required (2 blocking) — split it' }), 'orange');
    assert.equal(decisionTone({ kind: 'run', summary: 'Run needs you: 1 task needs you' }), 'red');
    assert.equal(decisionTone({ kind: 'plan', summary: 'Plan approved by human' }), 'plain');
  });
});
