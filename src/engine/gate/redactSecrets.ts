/**
 * Removes secrets from text that will be stored in the event log, shown in the editor and
 * handed to agents (gate output, agent output). It errs on the side of hiding too much.
 */
export const REDACTED = '[REDACTED]';

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
const MIN_SECRET_LENGTH = 8;

const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

const TOKEN_SHAPES: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g, // Anthropic
  /\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI and look-alikes
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g, // GitHub fine-grained tokens
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
];

const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

// `DB_PASSWORD=…`, `"api_key": "…"`, `client-secret: …`: keep the name, hide the value.
const ASSIGNMENT =
  /\b([\w.-]*?(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;'"]+)/gi;

export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text.replace(PEM_PRIVATE_KEY, REDACTED);
  for (const value of secretEnvValues(env)) out = out.split(value).join(REDACTED);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(BEARER, `$1${REDACTED}`);
  out = out.replace(ASSIGNMENT, (_all, name: string, value: string) => {
    const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
    return `${name}${quote}${REDACTED}${quote}`;
  });
  return out;
}

/** Longest first, so that a secret containing another one is hidden whole. */
function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  const values = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH)
    .map(([, value]) => value as string);
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}
