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
