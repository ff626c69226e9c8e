/**
 * Removes secrets from text that will be stored in the event log, shown in the editor and
 * handed to agents (gate output, agent output, reasons, notes). It errs on the side of hiding
 * too much.
 *
 * What is a secret:
 * - the value (8 characters or more) of an environment variable whose name looks secret
 *   (KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH — but not AUTHOR, so
 *   GIT_AUTHOR_NAME stays readable);
 * - well-known token shapes: Anthropic/OpenAI keys, GitHub tokens, AWS access key ids, Slack
 *   tokens, JWTs, `Bearer <token>`, PEM private key blocks (whole, cut off, or only their end);
 * - the value of a secret-looking assignment (`DB_PASSWORD=…`, `"api_key": "…"`);
 * - the secret values of the files `.worktreeinclude` copies into worktrees (hideValues), printed
 *   alone as well as in an assignment.
 *
 * The environment values and token shapes are one regular expression, compiled once per
 * environment object (for `process.env`: once per process), so a text is scanned once whatever
 * the number of secrets; two rarer shapes get their own pass only when a cheap check finds a hint.
 */
export const REDACTED = '[REDACTED]';

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH(?!OR)/i;
const MIN_SECRET_LENGTH = 8;

/** What CappedOutput puts where it cut the middle out of an output. */
const OMITTED_MARKER = String.raw`\n… \d+ bytes omitted …\n`;

// The sources below capture nothing, except the named groups of BEARER and ASSIGNMENT. The
// main pattern is case-sensitive (environment values are), so BEARER spells out its cases.
// PEM block: to its END line, or to where the output was cut, or to the end of the text.
const PEM_PRIVATE_KEY = String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|(?=${OMITTED_MARKER})|(?![\s\S]))`;
// The end of a PEM block whose beginning was cut off: its base64 lines and the END line. It
// starts at a line start only (`(?<![^\n])`), which keeps it cheap on ordinary text.
const PEM_ORPHAN_END = String.raw`(?<![^\n])(?:[A-Za-z0-9+/=]{16,}\r?\n)+-----END [A-Z0-9 ]*PRIVATE KEY-----`;

const TOKEN_SHAPES: string[] = [
  String.raw`\bsk-ant-[A-Za-z0-9_-]{8,}`, // Anthropic
  String.raw`\bsk-[A-Za-z0-9_-]{16,}`, // OpenAI and look-alikes
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`, // GitHub tokens
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`, // GitHub fine-grained tokens
  String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, // AWS access key ids
  String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`, // Slack
  String.raw`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`, // JWT (header.payload.signature)
];

// `bearer`: the kept prefix.
const BEARER = String.raw`\b(?<bearer>[Bb][Ee][Aa][Rr][Ee][Rr]\s+)[A-Za-z0-9._~+/=-]{8,}`;

// `DB_PASSWORD=…`, `"api_key": "…"`, `client-secret: …`: keep the name, hide the value.
// `name`: the kept name; `value`: the hidden value.
const ASSIGNMENT = String.raw`\b(?<name>[\w.-]*?(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[:=]\s*)(?<value>"[^"\n]*"|'[^'\n]*'|[^\s,;'"]+)`;

export interface Redactor {
  /** The text with every secret replaced by REDACTED (the same string when there is none). */
  redact(text: string): string;
  /** The secret environment values it hides, and those hideValues added, longest first (for tests and diagnostics). */
  readonly envValues: readonly string[];
}

let cache = new WeakMap<object, Redactor>();

/** Values every redactor hides besides its environment's: the secrets of files copied into worktrees (hideValues). */
const hiddenValues = new Set<string>();

/**
 * Hides `values` (those of 8 characters or more) in everything redacted from now on in this
 * process, whatever the environment: values a worktree's copied files hold, which its agents and
 * gates may print. Redactors are built again to take them in.
 */
export function hideValues(values: Iterable<string>): void {
  const before = hiddenValues.size;
  for (const value of values) if (value.length >= MIN_SECRET_LENGTH) hiddenValues.add(value);
  if (hiddenValues.size !== before) cache = new WeakMap();
}

/**
 * The secret values in a configuration file's text, by the environment's rule: the value (8
 * characters or more) of a `NAME=value` or `NAME: value` line (dotenv, YAML, INI, TOML) or a
 * `"name": "value"` member (JSON) whose name looks secret, and the password of a URL with
 * credentials (`postgres://user:password@host`) under any name.
 */
export function secretValuesInText(text: string): string[] {
  const values: string[] = [];
  for (const match of text.matchAll(CONFIG_ENTRY)) {
    const { name, value } = match.groups as { name: string; value: string };
    const bare = unquote(value.trim());
    if (SECRET_NAME.test(name)) values.push(bare);
    for (const url of bare.matchAll(URL_PASSWORD)) values.push(url.groups!.password!);
  }
  return values.filter((v) => v.length >= MIN_SECRET_LENGTH);
}

// `export NAME=value`, `NAME: value`, `"name": "value",` — one per line.
const CONFIG_ENTRY = /^[ \t]*(?:export[ \t]+)?["']?(?<name>[\w.-]+)["']?[ \t]*[:=][ \t]*(?<value>[^\r\n]*?)[ \t]*,?[ \t]*$/gm;
const URL_PASSWORD = /[a-z][\w+.-]*:\/\/[^\s:@/]*:(?<password>[^\s@/]+)@/gi;
const unquote = (value: string): string => (/^(["']).*\1$/.test(value) ? value.slice(1, -1) : value);

/**
 * The redactor for an environment, built once per environment object. For `process.env` that is
 * once per process: a variable set after the first redaction is not picked up (call
 * `forgetRedactor(process.env)` after changing secret variables on purpose).
 */
export function redactorFor(env: NodeJS.ProcessEnv = process.env): Redactor {
  let redactor = cache.get(env);
  if (!redactor) {
    redactor = buildRedactor(secretEnvValues(env));
    cache.set(env, redactor);
  }
  return redactor;
}

export function forgetRedactor(env: NodeJS.ProcessEnv = process.env): void {
  cache.delete(env);
}

export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return redactorFor(env).redact(text);
}

// Shapes that a cheap check rules out on most texts, so they are not part of the main pattern
// (in one alternation they would be tried at every position and triple its cost).
const PEM_ORPHAN_END_RE = new RegExp(PEM_ORPHAN_END, 'g');
const ASSIGNMENT_RE = new RegExp(ASSIGNMENT, 'gi');
const ASSIGNMENT_HINT = /passw|secret|api[_-]?key|token|private[_-]?key/i;

function buildRedactor(envValues: string[]): Redactor {
  // One pattern for this environment. At one position the first alternative that matches
  // wins, so the longer constructs (PEM blocks, env values longest first) come first.
  const main = new RegExp([PEM_PRIVATE_KEY, BEARER, ...envValues.map(escapeRegExp), ...TOKEN_SHAPES].join('|'), 'g');
  const redact = (text: string): string => {
    if (text.length < MIN_SECRET_LENGTH) return text;
    let out = text;
    main.lastIndex = 0;
    if (main.test(out)) {
      main.lastIndex = 0;
      out = out.replace(main, (...args: unknown[]) => {
        const groups = args[args.length - 1] as { bearer?: string };
        return groups.bearer !== undefined ? `${groups.bearer}${REDACTED}` : REDACTED;
      });
    }
    if (out.includes('-----END ')) out = out.replace(PEM_ORPHAN_END_RE, REDACTED);
    if (ASSIGNMENT_HINT.test(out)) {
      out = out.replace(ASSIGNMENT_RE, (...args: unknown[]) => {
        const { name, value } = args[args.length - 1] as { name: string; value: string };
        const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
        return `${name}${quote}${REDACTED}${quote}`;
      });
    }
    return out;
  };
  return { redact, envValues };
}

/** Longest first, so that a secret containing another one is hidden whole. */
function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  const values = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH)
    .map(([, value]) => value as string);
  return [...new Set([...values, ...hiddenValues])].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * Keys of event bodies that identify things (ids, states, enums, commits, paths): the engine
 * looks things up by them, so they are never rewritten. Everything else that is a string is
 * redacted.
 */
const IDENTIFIER_KEYS = new Set([
  'type', 'seq', 'runId', 'at', 'taskId', 'id', 'dependsOn', 'event', 'from', 'to', 'role', 'agent', 'model',
  'status', 'sessionId', 'action', 'by', 'decision', 'severity', 'category', 'commit', 'ref', 'branch', 'path',
  'repoRoot', 'baseCommit', 'baseRef',
]);

/**
 * A copy of an event body with every string value redacted (except the identifiers above, and
 * the run's `config`: the user's own settings, which the engine executes as written — a gate
 * command redacted in the log would run redacted on resume), or the same object when nothing
 * needed it (the common case: no copy, no allocation beyond the scan).
 */
export function redactEventBody<T>(body: T, redactor: Redactor = redactorFor()): T {
  return redactValue(body, redactor) as T;
}

function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i];
      const next = redactValue(item, redactor);
      if (next !== item) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (IDENTIFIER_KEYS.has(key) || key === 'config') continue;
    const item = record[key];
    if (item === null || (typeof item !== 'string' && typeof item !== 'object')) continue;
    const next = redactValue(item, redactor);
    if (next !== item) {
      copy ??= { ...record };
      copy[key] = next;
    }
  }
  return copy ?? value;
}
