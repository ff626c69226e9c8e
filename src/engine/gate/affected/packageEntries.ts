/** How deep a conditions object is followed: npm's nest a few levels; a hostile one could nest thousands. */
const MAX_CONDITION_DEPTH = 8;

/**
 * The targets a package.json `exports` (or `imports`) map gives a subpath (`.`, `./util`,
 * `#internal`), under every condition: which one a runner picks depends on how it loads the
 * package, so every one counts. Empty when the map does not export the subpath.
 */
export function mappedTargets(map: unknown, subpath: string): string[] {
  const bySubpath = isSubpathMap(map) ? map : subpath === '.' ? { '.': map } : {};
  if (Object.hasOwn(bySubpath, subpath)) return targetStrings(bySubpath[subpath], 0);
  // As Node does: the pattern with the longest part before its `*` wins.
  const patterns = Object.entries(bySubpath).sort(([a], [b]) => b.indexOf('*') - a.indexOf('*'));
  for (const [key, value] of patterns) {
    const star = key.indexOf('*');
    if (star < 0 || key.indexOf('*', star + 1) >= 0) continue;
    const [before, after] = [key.slice(0, star), key.slice(star + 1)];
    if (subpath.length < key.length - 1 || !subpath.startsWith(before) || !subpath.endsWith(after)) continue;
    const matched = subpath.slice(before.length, subpath.length - after.length);
    return targetStrings(value, 0).map((target) => target.replaceAll('*', matched));
  }
  return [];
}

function isSubpathMap(map: unknown): map is Record<string, unknown> {
  return typeof map === 'object' && map !== null && !Array.isArray(map) && Object.keys(map).some((key) => key.startsWith('.') || key.startsWith('#'));
}

function targetStrings(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (depth >= MAX_CONDITION_DEPTH || typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap((inner) => targetStrings(inner, depth + 1));
}

/** `@scope/pkg/sub/path` → `@scope/pkg` and `./sub/path`; `lodash` → `lodash` and `.`. */
export function splitBareSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return { name: parts.slice(0, length).join('/'), subpath: rest ? `./${rest}` : '.' };
}
