import type { TokenUsage } from '../../domain/usage';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  cachedInput: number;
  output: number;
}

/**
 * OpenAI LIST prices (standard tier, USD per 1M tokens) of the models codex is used with.
 * They change: keep this table current (https://openai.com/api/pricing). A model that is not
 * here is charged at DEFAULT_PRICE, and `priceOf` says it was a guess.
 */
export const CODEX_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-5.2': { input: 1.75, cachedInput: 0.175, output: 14 },
  'gpt-5.2-codex': { input: 1.75, cachedInput: 0.175, output: 14 },
  'gpt-5.1': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex-max': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-5-pro': { input: 15, cachedInput: 15, output: 120 },
  'codex-mini-latest': { input: 1.5, cachedInput: 0.375, output: 6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
});

/** For a model missing from the table (and for codex's own default when no model was given): gpt-5's prices. */
export const DEFAULT_PRICE: ModelPrice = Object.freeze({ input: 1.25, cachedInput: 0.125, output: 10 });

/**
 * The price of a model: an exact match, else the same name without a date suffix
 * (`gpt-4.1-2025-04-14`), else the longest table entry it extends with `-…`
 * (`gpt-5-codex-preview` → `gpt-5-codex`), else the default.
 */
export function priceOf(model: string | undefined): { price: ModelPrice; known: boolean; matched?: string } {
  if (!model) return { price: DEFAULT_PRICE, known: false };
  const name = model.trim().toLowerCase().replace(/^openai\//, '');
  const candidates = [name, name.replace(/-\d{4}-\d{2}-\d{2}$/, '')];
  for (const c of candidates) {
    const price = CODEX_PRICES[c];
    if (price) return { price, known: true, matched: c };
  }
  const prefix = Object.keys(CODEX_PRICES)
    .filter((key) => name.startsWith(`${key}-`))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix) return { price: CODEX_PRICES[prefix]!, known: true, matched: prefix };
  return { price: DEFAULT_PRICE, known: false };
}

/**
 * Dollars for a call. `usage.inputTokens` are the uncached input tokens, `cacheReadTokens` the
 * cached ones; cache writes (0 with OpenAI) are charged as input. Rounded to a micro-dollar.
 */
export function costOf(model: string | undefined, usage: Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>): number {
  const { price } = priceOf(model);
  const dollars =
    ((usage.inputTokens + usage.cacheWriteTokens) * price.input +
      usage.cacheReadTokens * price.cachedInput +
      usage.outputTokens * price.output) /
    1_000_000;
  return Math.round(dollars * 1e6) / 1e6;
}
