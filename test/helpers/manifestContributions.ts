// Checks what package.json contributes against what the extension registers and sets: the
// commands (each contributed once, with a handler, and each handler contributed), every place a
// command is named (menus, keybindings, command: links in welcome views and walkthroughs), and the
// menus' when clauses (each view they name is a tree view, each viewItem clause matches a value a
// row of that view can carry). A function of its inputs, so a test can plant a fault in a copy.

export interface ManifestContributions {
  contributes: {
    commands: Array<{ command: string; title: string; category?: string; icon?: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    keybindings?: Array<{ command: string; when?: string }>;
    views: Record<string, Array<{ id: string }>>;
    [other: string]: unknown;
  };
}

export interface Registered {
  /** The ids registerCommands registers (src/extension/commandIds.ts). */
  commands: readonly string[];
  /** By tree view id, every context value its rows can carry (src/extension/tree/contextValues.ts). */
  contextValues: Readonly<Record<string, readonly string[]>>;
}

const VIEW = /\bview == ([\w.-]+)/g;
const VIEW_ITEM_MATCHES = /\bviewItem =~ \/((?:\\.|[^/\\])+)\/([a-z]*)/g;
const VIEW_ITEM_IS = /\bviewItem == ([\w.-]+)/g;
/** `command:taskloom.x` links (welcome views, walkthrough steps) and `onCommand:taskloom.x` completion events. */
const COMMAND_LINK = /\b(?:on[Cc]ommand|command):(taskloom\.[\w.]+)/g;

/** What does not hold, each in words naming the command, menu or clause; empty when all is well. */
export function contributionProblems(manifest: ManifestContributions, registered: Registered): string[] {
  const problems: string[] = [];
  const { commands, menus, keybindings = [], views, ...rest } = manifest.contributes;
  const handled = new Set(registered.commands);
  const contributed = new Set<string>();
  for (const { command, category, icon } of commands) {
    if (contributed.has(command)) problems.push(`${command} is contributed twice`);
    contributed.add(command);
    if (!handled.has(command)) problems.push(`${command} is contributed but no handler is registered for it`);
    if (category !== 'Taskloom' || !/^\$\([\w-]+\)$/.test(icon ?? '')) problems.push(`${command} lacks the Taskloom category or a codicon`);
  }
  for (const id of registered.commands) if (!contributed.has(id)) problems.push(`${id} has a handler but package.json does not contribute it`);

  const named = (command: string, where: string) => {
    if (!handled.has(command) || !contributed.has(command)) problems.push(`${where} names ${command}, which is not a registered and contributed command`);
  };
  for (const [menu, entries] of Object.entries(menus)) {
    for (const { command, when = '' } of entries) {
      named(command, `menu ${menu}`);
      problems.push(...whenProblems(when, `menu ${menu} entry for ${command}`, views, registered.contextValues));
    }
  }
  for (const { command, when = '' } of keybindings) {
    named(command, 'a keybinding');
    problems.push(...whenProblems(when, `the keybinding of ${command}`, views, registered.contextValues));
  }
  for (const [section, value] of Object.entries(rest)) {
    for (const [, command] of JSON.stringify(value).matchAll(COMMAND_LINK)) named(command!, `contributes.${section}`);
  }
  return problems;
}

/** The views a when clause names are contributed; the rows it matches are rows those views have. */
function whenProblems(when: string, where: string, views: ManifestContributions['contributes']['views'], contextValues: Registered['contextValues']): string[] {
  const problems: string[] = [];
  const contributedViews = new Set(Object.values(views).flatMap((list) => list.map((view) => view.id)));
  const named = [...when.matchAll(VIEW)].map((m) => m[1]!);
  for (const view of named) if (!contributedViews.has(view)) problems.push(`${where}: view ${view} is not contributed`);
  const patterns = [
    ...[...when.matchAll(VIEW_ITEM_MATCHES)].map((m) => {
      const pattern = new RegExp(m[1]!, m[2]);
      return { clause: m[0], matches: (value: string) => pattern.test(value) };
    }),
    ...[...when.matchAll(VIEW_ITEM_IS)].map((m) => ({ clause: m[0], matches: (value: string) => value === m[1] })),
  ];
  if (patterns.length === 0) return problems;
  // A clause on rows names the views it is for; without one it would match rows of any tree view.
  const rowViews = named.length ? named : Object.keys(contextValues);
  for (const { clause, matches } of patterns) {
    for (const view of rowViews) {
      const values = contextValues[view];
      if (!values) problems.push(`${where}: ${clause} is for rows of ${view}, whose rows set no context value`);
      else if (!values.some(matches)) problems.push(`${where}: ${clause} matches no context value a row of ${view} can carry`);
    }
  }
  return problems;
}
