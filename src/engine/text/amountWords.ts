import { totalTokens, type TokenUsage } from '../domain/usage';

/** Amounts as every text view says them (the CLI, the MCP server): dollars to a hundredth of a cent, tokens, durations. */
export const formatUsd = (usd: number): string => `$${usd.toFixed(4)}`;
export const formatTokens = (u: TokenUsage): string => `${totalTokens(u).toLocaleString('en-US')} tok`;
export const formatDuration = (ms: number): string =>
  ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
