import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asksForChange, reviewAsksForChange } from '../../src/engine/domain/changeRequest';

describe('what asks for a change', () => {
  it('thanks, approval, praise and emoji ask for nothing', () => {
    for (const text of ['thanks', 'Thank you so much!', 'LGTM', 'lgtm 🚀', 'Looks good to me 👍', 'nice', 'Nice work!', 'thanks for the fix', '🎉', '👍', '+1', '', '  \n', 'Ship it!', "Great, it's perfect now."]) {
      assert.equal(asksForChange(text), false, JSON.stringify(text));
    }
  });

  it('anything else asks: a request, praise with a request, a bare imperative, a question', () => {
    for (const text of ['Please use a template literal here.', 'LGTM, but rename greet to hello', 'fix this', 'change it', 'Why is this async?', 'Nearly there.', 'thanks! also add a test for empty names']) {
      assert.equal(asksForChange(text), true, JSON.stringify(text));
    }
  });

  it('reads only what the writer says, not the lines they quote', () => {
    assert.equal(asksForChange('> Please rename greet\n\nThanks, looks good!'), false);
    assert.equal(asksForChange('> looks good\n\nbut please rename greet'), true);
  });

  it('a request for changes always asks; an approval only by an inline comment that asks; a comment review by its body or a comment', () => {
    assert.equal(reviewAsksForChange('changes_requested', '', 0), true);
    assert.equal(reviewAsksForChange('approved', 'Approved, but rename greet', 0), false, 'an approval with no inline comment asking starts nothing');
    assert.equal(reviewAsksForChange('approved', 'LGTM', 1), true);
    assert.equal(reviewAsksForChange('commented', 'Please add a test.', 0), true);
    assert.equal(reviewAsksForChange('commented', 'Thanks!', 0), false);
    assert.equal(reviewAsksForChange('commented', 'Thanks!', 1), true);
    assert.equal(reviewAsksForChange('dismissed', 'Please add a test.', 1), false);
  });
});
