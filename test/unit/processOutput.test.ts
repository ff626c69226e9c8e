import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CappedOutput } from '../../src/engine/process/cappedOutput';
import { LineSplitter } from '../../src/engine/process/processGroup';

describe('LineSplitter', () => {
  it('joins a line split across chunks and splits chunks holding several lines', () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push('{"a":'), []);
    assert.deepEqual(splitter.push('1}\n{"b":2}\n{"c"'), ['{"a":1}', '{"b":2}']);
    assert.deepEqual(splitter.push(':3}\r\n'), ['{"c":3}']);
  });

  it('keeps empty lines and hands over an unterminated last line at the end', () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push('a\n\nb'), ['a', '']);
    assert.deepEqual(splitter.end(), ['b']);
    assert.deepEqual(splitter.end(), []);
  });
});

describe('CappedOutput', () => {
  it('keeps everything under the cap', () => {
    const out = new CappedOutput(10);
    out.append('abc');
    out.append(Buffer.from('defghij'));
    assert.equal(out.toString(), 'abcdefghij');
    assert.equal(out.omitted, 0);
  });

  it('keeps head and tail across many small chunks', () => {
    const out = new CappedOutput(6);
    for (const ch of 'abcdefghijkl') out.append(ch);
    assert.equal(out.toString(), 'abc\n… 6 bytes omitted …\njkl');
  });

  it('never prints half a multi-byte character at a cut', () => {
    const out = new CappedOutput(8);
    out.append('ééééééééé'); // 18 bytes
    const text = out.toString();
    assert.ok(!text.includes('\uFFFD'), text);
    assert.match(text, /^é+\n… 10 bytes omitted …\né+$/);
  });
});
