// Numbers and times as the view prints them. Pure, so the tests pin the wording.

export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 999_500) return `${trimZero((count / 1000).toFixed(count < 10_000 ? 1 : 0))}k`;
  return `${trimZero((count / 1_000_000).toFixed(count < 10_000_000 ? 2 : 1))}M`;
}

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}

/** "850ms", "12s", "3m 05s", "2h 10m". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const trimZero = (n: string): string => n.replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
