import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TempRepo } from './tempRepo';

/**
 * Commits `edits` (a path → its new text, or null to delete it) on top of HEAD and returns what
 * changed between the two commits, as the gate gets it: `git diff --name-only`, deletions included.
 */
export function commitChange(repo: TempRepo, edits: Record<string, string | null>): string[] {
  for (const [path, text] of Object.entries(edits)) {
    const full = join(repo.dir, path);
    if (text === null) rmSync(full);
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
  }
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'task work']);
  return repo.git(['diff', '--name-only', 'HEAD~1', 'HEAD']).split('\n').filter(Boolean);
}

/**
 * A small TypeScript library as a user's would be: sources in folders with index files, `.js`
 * specifiers naming `.ts` sources, a type-only import, a real dependency, node:test tests that
 * import through the index files and a shared test helper. Its graph is six imports deep
 * (test/accounts.test.ts → accounts/index → ledger → account → money/index → amount → util/round).
 */
export const LEDGER_LIBRARY: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'ledger', type: 'module', scripts: { test: 'node --import tsx --test test/*.test.ts' }, dependencies: { 'date-fns': '^3.6.0' }, devDependencies: { tsx: '^4.19.0' } }, null, 2),
  'package-lock.json': '{ "lockfileVersion": 3 }\n',
  'tsconfig.json': '{ "compilerOptions": { "module": "NodeNext", "strict": true } }\n',
  '.mocharc.json': '{ "spec": "test/*.test.ts" }\n',
  'README.md': '# ledger\n',
  'src/index.ts': "export * from './money/index.js';\nexport * from './accounts/index.js';\nexport * from './reports/index.js';\n",
  'src/types.ts': 'export interface Entry { account: string; cents: number }\n',
  'src/money/index.ts': "export * from './currency.js';\nexport * from './amount.js';\n",
  'src/money/currency.ts': "export const CURRENCIES = ['EUR', 'USD'] as const;\nexport type Currency = (typeof CURRENCIES)[number];\n",
  'src/money/amount.ts': "import type { Currency } from './currency.js';\nimport { roundHalfEven } from '../util/round.js';\n\nexport const amount = (cents: number, currency: Currency) => ({ cents: roundHalfEven(cents), currency });\n",
  'src/util/round.ts': 'export const roundHalfEven = (n: number): number => (Math.abs(n % 1) === 0.5 ? 2 * Math.round(n / 2) : Math.round(n));\n',
  'src/util/format.ts': "import { roundHalfEven } from './round.js';\n\nexport const formatCents = (cents: number): string => (roundHalfEven(cents) / 100).toFixed(2);\n",
  'src/util/dates.ts': "import { formatISO } from 'date-fns';\n\nexport const today = (): string => formatISO(new Date(), { representation: 'date' });\n",
  'src/accounts/index.ts': "export * from './account.js';\nexport * from './ledger.js';\n",
  'src/accounts/account.ts': "import { amount } from '../money/index.js';\n\nexport const openAccount = (name: string) => ({ name, balance: amount(0, 'EUR') });\n",
  'src/accounts/ledger.ts': "import { openAccount } from './account.js';\nimport type { Entry } from '../types.js';\nimport { today } from '../util/dates.js';\n\nexport class Ledger {\n  entries: Entry[] = [];\n  opened = today();\n  account = openAccount('main');\n}\n",
  'src/reports/index.ts': "export * from './balance.js';\nexport * from './csv.js';\n",
  'src/reports/balance.ts': "import { Ledger } from '../accounts/index.js';\nimport { formatCents } from '../util/format.js';\n\nexport const balance = (ledger: Ledger): string => formatCents(ledger.entries.reduce((sum, e) => sum + e.cents, 0));\n",
  'src/reports/csv.ts': "import { escapeCsv } from './escape.js';\n\nexport const csvLine = (cells: string[]): string => cells.map(escapeCsv).join(',');\n",
  'src/reports/escape.ts': 'export const escapeCsv = (cell: string): string => (/[",\\n]/.test(cell) ? `"${cell.replace(/"/g, \'""\')}"` : cell);\n',
  'test/helpers/sampleLedger.ts': "import { Ledger } from '../../src/accounts/index.js';\n\nexport const sampleLedger = (): Ledger => new Ledger();\n",
  'test/money.test.ts': "import { test } from 'node:test';\nimport { amount } from '../src/money/index.js';\n\ntest('amount', () => { amount(1, 'EUR'); });\n",
  'test/accounts.test.ts': "import { test } from 'node:test';\nimport { openAccount } from '../src/accounts/index.js';\nimport { sampleLedger } from './helpers/sampleLedger.js';\n\ntest('accounts', () => { openAccount('x'); sampleLedger(); });\n",
  'test/balance.test.ts': "import { test } from 'node:test';\nimport { balance } from '../src/reports/balance.js';\nimport { sampleLedger } from './helpers/sampleLedger.js';\n\ntest('balance', () => { balance(sampleLedger()); });\n",
  'test/csv.test.ts': "import { test } from 'node:test';\nimport { csvLine } from '../src/reports/csv.js';\n\ntest('csv', () => { csvLine(['a']); });\n",
  'test/format.test.ts': "import { test } from 'node:test';\nimport { formatCents } from '../src/util/format.js';\n\ntest('format', () => { formatCents(1); });\n",
  'test/api.test.ts': "import { test } from 'node:test';\nimport * as ledger from '../src/index.js';\n\ntest('api', () => { ledger.csvLine([]); });\n",
};

export const LEDGER_TESTS = Object.keys(LEDGER_LIBRARY).filter((path) => path.endsWith('.test.ts'));
