import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerCandidates } from '../../src/engine/loop/criticRubric';
import { extractJson, jsonInText } from '../../src/engine/text/jsonInText';

describe('jsonInText: the JSON an agent answered with, wherever it put it', () => {
  it('finds an object between prose, whole, though it holds objects of its own', () => {
    const text = 'Reviewed it.\nVerdict: {"verdict":"changes_required","findings":[{"file":"a.ts","line":3}]} thanks';
    assert.deepEqual(extractJson(text), { verdict: 'changes_required', findings: [{ file: 'a.ts', line: 3 }] });
    assert.equal([...jsonInText(text)].length, 1);
  });

  it('prefers the last fenced block, also one on the fence line', () => {
    assert.deepEqual(extractJson('```json {"a":1}```\nthen\n```json\n{"a":2}\n```'), { a: 2 });
    assert.deepEqual(extractJson('```json {"a":1}```'), { a: 1 });
  });

  it('has nothing to offer for text without JSON', () => {
    assert.equal(extractJson('no json here {not: json}'), undefined);
    assert.deepEqual([...answerCandidates(undefined, 'plain words')], []);
  });

  it('offers structured output before anything in the text', () => {
    assert.deepEqual([...answerCandidates({ s: 1 }, '{"t":2}')], [{ s: 1 }, { t: 2 }, { t: 2 }, { t: 2 }]);
  });
});
