export const FINDING_SEVERITIES = ['blocker', 'major', 'minor', 'nit'] as const;
export const FINDING_CATEGORIES = [
  'correctness',
  'requirements',
  'test-integrity',
  'breakage',
  'security',
  'style',
  'other',
] as const;

export interface CriticFinding {
  file?: string;
  line?: number;
  severity: (typeof FINDING_SEVERITIES)[number];
  category: (typeof FINDING_CATEGORIES)[number];
  message: string;
}

export interface CriticVerdict {
  decision: 'green' | 'changes_required';
  summary: string;
  findings: CriticFinding[];
}

/** Only these can hold a task back; everything else (style, other) is a nit. */
const BLOCKING_CATEGORIES: ReadonlySet<CriticFinding['category']> = new Set([
  'correctness',
  'requirements',
  'test-integrity',
  'breakage',
  'security',
]);

export const isBlocking = (f: CriticFinding): boolean => BLOCKING_CATEGORIES.has(f.category) && f.severity !== 'nit';

export function blockingFindings(verdict: CriticVerdict): CriticFinding[] {
  return verdict.decision === 'green' ? [] : verdict.findings.filter(isBlocking);
}

/**
 * What makes two findings "the same" across reviews: the file, the category and the gist of
 * the message (reviewers reword, and line numbers move as the actor edits).
 */
export function findingFingerprint(f: CriticFinding): string {
  const gist = f.message.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim().slice(0, 60);
  return `${f.file ?? ''}|${f.category}|${gist}`;
}
