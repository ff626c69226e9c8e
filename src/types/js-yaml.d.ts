// js-yaml 4 ships no types of its own, and @types/js-yaml is not installed: the one call used.
declare module 'js-yaml' {
  /** Parses one YAML document into plain data (no JavaScript types: js-yaml 4's default schema is safe). */
  export function load(text: string, options?: { filename?: string; json?: boolean }): unknown;
}
