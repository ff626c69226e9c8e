import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, formatTokens, formatUsd } from '../../../src/webview/runView/format';
import { goalHeadline } from '../../../src/engine/text/clip';
import { issueGoalText } from '../../../src/engine/text/issueWords';
import { displayText, oneLine } from '../../../src/webview/runView/text';

describe('text for display', () => {
  it('strips colour, cursor and OSC escapes, including hyperlinks', () => {
    assert.equal(displayText('\x1b[31mFAIL\x1b[0m \x1b[1;32mok\x1b[22m'), 'FAIL ok');
    assert.equal(displayText('a\x1b[2K\x1b[1Gb\x1b[?25l'), 'ab');
    assert.equal(displayText('\x1b]8;;https://example.com\x07link\x1b]8;;\x07'), 'link');
    assert.equal(displayText('\x1b]0;title\x1b\\after'), 'after');
    assert.equal(displayText('\x1b(Bplain\x1b='), 'plain');
  });

  it('keeps HTML literally (it is shown as text, never parsed)', () => {
    const hostile = '<img src=x onerror=alert(1)> <script>alert("x")</script> &amp;';
    assert.equal(displayText(hostile), hostile);
    assert.equal(oneLine(`\x1b[31m${hostile}\x1b[0m`), hostile);
  });

  it('drops control characters but keeps tabs and newlines, and normalises CRLF', () => {
    assert.equal(displayText('a\x00b\x07c\r\nd\te\x7f\rf'), 'abc\nd\te\nf');
  });

  it('collapses to one line and cuts with an ellipsis', () => {
    assert.equal(oneLine('  two\n  lines  '), 'two lines');
    assert.equal(oneLine('abcdefghij', 5), 'abcd…');
    assert.equal(oneLine('abcde', 5), 'abcde');
  });
});

describe('number formats', () => {
  it('prints tokens, dollars and durations compactly', () => {
    assert.deepEqual([830, 1234, 54_600, 999_999, 1_250_000, 12_345_678].map(formatTokens), ['830', '1.2k', '55k', '1M', '1.25M', '12.3M']);
    assert.deepEqual([0, 0.0042, 0.1599, 12.5, 1234.4].map(formatUsd), ['$0', '$0.0042', '$0.16', '$12.50', '$1,234']);
    assert.deepEqual([850, 12_000, 185_000, 7_800_000].map(formatDuration), ['850ms', '12s', '3m 05s', '2h 10m']);
  });

  it("labels a goal from an issue by the issue's title, not its whole quoted text", () => {
    const goal = issueGoalText({ repo: 'octo/greeter', number: 11, title: 'Greetings feel cold', author: 'ada', body: 'Say hello warmly.', comments: [] });
    assert.equal(goalHeadline(goal), 'Greetings feel cold');
    assert.equal(goalHeadline('\n  \nAdd a farewell'), 'Add a farewell');
  });
});
