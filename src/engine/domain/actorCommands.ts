import type { RunConfig } from './runConfig';

/**
 * The commands a writing actor may run: each simple command of the gate (so it can check its
 * own work the way the gate will), then the user's allowlist. Gate commands are split at
 * `&&`, `||`, `;` and `|`, because a permission rule is matched against each part of a
 * compound command, not against the whole line.
 */
export function actorAllowedCommands(config: Pick<RunConfig, 'gateCommands' | 'actorAllowedCommands'>): string[] {
  const gateParts = config.gateCommands.flatMap((line) => line.split(/&&|\|\||;|\|/));
  const all = [...gateParts, ...(config.actorAllowedCommands ?? [])].map((c) => c.trim()).filter(Boolean);
  return [...new Set(all)];
}
