/**
 * The demo's sample repository, plan and scripted agent scenario: a tiny text library with a
 * real `node --test` suite. One task fails the gate once, one gets "changes required" once; two
 * tasks whose files hints both name the README run one after the other; one task edits the
 * README without saying so in its hints, so its merge conflicts and its agent resolves it.
 */
const README = `# textkit

Small text helpers, grown by Taskloom's demo.

## Functions

- splitWords(text): the words of a text

## Install

Copy src/ into your project; there are no dependencies.

## License

MIT
`;

const LISTED = '- splitWords(text): the words of a text\n';
/** Adds a line to the README's list of functions, after splitWords: where two tasks meet. */
const listFunction = (line: string) => ({ path: 'README.md', find: LISTED, replace: `${LISTED}${line}\n` });

export const DEMO_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'textkit-demo', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
  'README.md': README,
  'src/words.js': `'use strict';

/** Splits text into words, dropping punctuation and empty pieces. */
function splitWords(text) {
  return text.split(/[^\\p{L}\\p{N}']+/u).filter(Boolean);
}

module.exports = { splitWords };
`,
  'test/words.test.js': `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { splitWords } = require('../src/words');

test('splitWords drops punctuation', () => {
  assert.deepStrictEqual(splitWords('Hello, world!'), ['Hello', 'world']);
});
`,
};

const slugify = `'use strict';

/** Lower-case, ASCII-only, dash-separated: "Hello World!" → "hello-world". */
function slugify(text) {
  return text
    .normalize('NFKD')
    .replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

module.exports = { slugify };
`;

const slugifyTest = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { slugify } = require('../src/slugify');

test('slugify makes url-safe slugs', () => {
  assert.strictEqual(slugify('Hello World!'), 'hello-world');
  assert.strictEqual(slugify('  Crème brûlée  '), 'creme-brulee');
});
`;

const wordCountBuggy = `'use strict';

/** Counts words in text. */
function wordCount(text) {
  return text.split(' ').length;
}

module.exports = { wordCount };
`;

const wordCountTest = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { wordCount } = require('../src/wordCount');

test('wordCount counts words', () => {
  assert.strictEqual(wordCount('one two  three'), 3);
});

test('wordCount of empty text is 0', () => {
  assert.strictEqual(wordCount(''), 0);
});
`;

const titleCase = `'use strict';
const { splitWords } = require('./words');

/** "the quick fox" → "The Quick Fox". */
function titleCase(text) {
  return splitWords(text)
    .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase())
    .join(' ');
}

module.exports = { titleCase };
`;

const titleCaseTest = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { titleCase } = require('../src/titleCase');

test('titleCase capitalises each word', () => {
  assert.strictEqual(titleCase('the quick FOX'), 'The Quick Fox');
});
`;

const titleCaseEmptyTest = `
test('titleCase of empty text is empty', () => {
  assert.strictEqual(titleCase(''), '');
});
`;

const summary = `'use strict';
const { wordCount } = require('./wordCount');
const { titleCase } = require('./titleCase');

/** One line describing a text: its title-cased opening and its length in words. */
function summarize(text) {
  const opening = titleCase(text.split(/[.!?]/)[0] ?? '');
  return \`\${opening} (\${wordCount(text)} words)\`;
}

module.exports = { summarize };
`;

const summaryTest = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { summarize } = require('../src/summary');

test('summarize gives the opening and the word count', () => {
  assert.strictEqual(summarize('the cat sat. then it slept'), 'The Cat Sat (6 words)');
});
`;

const cli = `#!/usr/bin/env node
'use strict';
const { summarize } = require('../src/summary');
const { slugify } = require('../src/slugify');

const text = process.argv.slice(2).join(' ');
process.stdout.write(\`\${slugify(text)}: \${summarize(text)}\\n\`);
`;

// The sample project's own test file, as text: it starts its CLI from inside the gate's sandbox, not Taskloom's code.
const cliTest = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

test('the textkit command prints a slug and a summary', () => {
  const out = execFileSync(process.execPath, [path.join(__dirname, '../bin/textkit.js'), 'Hello big world'], { encoding: 'utf8' });
  assert.strictEqual(out, 'hello-big-world: Hello Big World (3 words)\\n');
});
`;

export const DEMO_PLAN = {
  goal: 'Grow textkit: slugs, word counts, title case, a one-line summary and a command-line tool',
  rationale:
    'Independent helpers first so they can be built in parallel; the summary needs word counts and title case; the CLI needs the summary and slugs.',
  tasks: [
    {
      id: 'slugify',
      title: 'Add slugify()',
      description: 'Add src/slugify.js turning any text into a lower-case, dash-separated ASCII slug.',
      acceptance: ['slugify("Hello World!") is "hello-world"', 'accents are folded to ASCII', 'covered by a node --test test'],
      dependsOn: [],
      files: ['src/slugify.js', 'test/slugify.test.js', 'README.md'],
    },
    {
      id: 'word-count',
      title: 'Add wordCount()',
      description: 'Add src/wordCount.js counting the words of a text, ignoring repeated spaces, and list it in the README.',
      acceptance: ['wordCount("one two  three") is 3', 'wordCount("") is 0', 'the README lists it'],
      dependsOn: [],
      files: ['src/wordCount.js', 'test/wordCount.test.js'],
    },
    {
      id: 'title-case',
      title: 'Add titleCase()',
      description: 'Add src/titleCase.js capitalising each word, built on splitWords, and say so in the README.',
      acceptance: ['titleCase("the quick FOX") is "The Quick Fox"', 'empty text gives an empty string, with a test', 'the README mentions it'],
      dependsOn: [],
      files: ['src/titleCase.js', 'test/titleCase.test.js', 'README.md'],
    },
    {
      id: 'summary',
      title: 'Add summarize()',
      description: 'Add src/summary.js: the title-cased first sentence and the word count of a text.',
      acceptance: ['summarize("the cat sat. then it slept") is "The Cat Sat (6 words)"'],
      dependsOn: ['word-count', 'title-case'],
      files: ['src/summary.js', 'test/summary.test.js'],
    },
    {
      id: 'cli',
      title: 'Add the textkit command',
      description: 'Add bin/textkit.js printing the slug and the summary of its arguments.',
      acceptance: ['`textkit Hello big world` prints "hello-big-world: Hello Big World (3 words)"'],
      dependsOn: ['slugify', 'summary'],
      files: ['bin/textkit.js', 'test/cli.test.js'],
    },
  ],
};

const green = (summary: string) => ({ verdict: { decision: 'green', summary, findings: [] } });

export function demoScenario(delayMs: number) {
  return {
    defaults: {
      delayMs,
      usage: { inputTokens: 2400, outputTokens: 600, cacheReadTokens: 1200, cacheWriteTokens: 0 },
      costUsd: 0.0123,
    },
    tasks: {
      slugify: {
        actor: [
          {
            write: { 'src/slugify.js': slugify, 'test/slugify.test.js': slugifyTest },
            patch: [listFunction('- slugify(text): a lower-case, dash-separated slug')],
            text: 'Added slugify with tests, and listed it in the README.',
          },
        ],
        critic: [green('Slugs are correct and tested.')],
      },
      'word-count': {
        actor: [
          {
            write: { 'src/wordCount.js': wordCountBuggy, 'test/wordCount.test.js': wordCountTest },
            patch: [listFunction('- wordCount(text): how many words a text has')],
            text: 'Added wordCount, and listed it in the README.',
          },
          {
            patch: [{ path: 'src/wordCount.js', find: "return text.split(' ').length;", replace: 'return text.split(/\\s+/).filter(Boolean).length;' }],
            text: 'Split on any whitespace and drop empty pieces, as the failing tests showed.',
          },
        ],
        critic: [green('Counts words correctly, including empty text.'), green('The merge keeps both README lines.')],
        // Unscripted, the resolver keeps both sides of each conflict: here, both lines of the list.
      },
      'title-case': {
        actor: [
          {
            write: { 'src/titleCase.js': titleCase, 'test/titleCase.test.js': titleCaseTest },
            patch: [{ path: 'README.md', find: '## License', replace: '## Title case\n\ntitleCase(text) capitalises each word.\n\n## License' }],
            text: 'Added titleCase, with a README section.',
          },
          { write: { 'test/titleCase.test.js': titleCaseTest + titleCaseEmptyTest }, text: 'Added the empty-text test.' },
        ],
        critic: [
          {
            verdict: {
              decision: 'changes_required',
              summary: 'The empty-text criterion has no test.',
              findings: [
                {
                  file: 'test/titleCase.test.js',
                  line: 6,
                  severity: 'major',
                  category: 'requirements',
                  message: 'Acceptance asks for a test that empty text gives an empty string.',
                },
                { file: 'src/titleCase.js', line: 4, severity: 'nit', category: 'style', message: 'Consider a JSDoc @param.' },
              ],
            },
          },
          green('Empty text is now covered.'),
        ],
      },
      summary: {
        actor: [{ write: { 'src/summary.js': summary, 'test/summary.test.js': summaryTest }, text: 'Added summarize on top of wordCount and titleCase.' }],
        critic: [green('Builds on both dependencies; tested.')],
      },
      cli: {
        actor: [{ write: { 'bin/textkit.js': cli, 'test/cli.test.js': cliTest }, text: 'Added the textkit command.' }],
        critic: [green('The command works end to end.')],
      },
    },
  };
}
