/**
 * The test cases of a JUnit XML report as pytest writes it: each `<testcase>`'s attributes and
 * whether it failed (a `<failure>` or an `<error>`) or was skipped.
 *
 * A reader of that one known shape rather than an XML library: none is among Taskloom's
 * dependencies (xml2js is in node_modules only as a dependency of @vscode/vsce, a dev tool that
 * is not shipped), and pytest's writer escapes every `<`, `>`, `&` and quote in text and
 * attributes, writes no CDATA and nests no test case in another, so the element boundaries are
 * exact. Whatever else a report holds (properties, system-out) is skipped. A report that is not
 * this shape reads as no test cases, never as an error.
 */
export interface JunitTestCase {
  attributes: Record<string, string>;
  outcome: 'passed' | 'failed' | 'skipped';
}

const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Scanned with indexOf, each part once, so that no report (however made) costs more than a pass over it. */
export function junitTestCases(xml: string): JunitTestCase[] {
  const cases: JunitTestCase[] = [];
  for (let at = xml.indexOf('<testcase'); at >= 0; at = xml.indexOf('<testcase', at)) {
    const tagEnd = xml.indexOf('>', at);
    if (tagEnd < 0) break;
    const selfClosing = xml[tagEnd - 1] === '/';
    const attributes: Record<string, string> = {};
    for (const attribute of xml.slice(at + '<testcase'.length, selfClosing ? tagEnd - 1 : tagEnd).matchAll(ATTRIBUTE)) {
      attributes[attribute[1]!] = decodeEntities(attribute[2] ?? attribute[3] ?? '');
    }
    let body = '';
    at = tagEnd + 1;
    if (!selfClosing) {
      const close = xml.indexOf('</testcase', at);
      if (close < 0) break;
      body = xml.slice(at, close);
      at = close;
    }
    const outcome = /<(failure|error)\b/.test(body) ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    cases.push({ attributes, outcome });
  }
  return cases;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED[name] ?? entity;
  });
}
