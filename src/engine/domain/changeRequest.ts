/**
 * Whether what a person wrote on a pull request asks for a change, so that `watch` hands it to an
 * agent. The rule is small on purpose, so a reviewer can predict it: words ask for a change unless
 * there are none (only emoji and punctuation), or every one of them is praise or acknowledgement
 * (PRAISE_WORDS) or a word that goes with it (COURTESY_WORDS) and at least one is praise. Lines
 * quoted with `>` are what the writer answers, not what they say, and are left out first. Examples:
 *
 *   "thanks", "Thank you so much!", "LGTM", "Looks good to me 👍", "nice work", "thanks for the fix", "🎉", "+1"  → no
 *   "Please use a template literal here.", "LGTM, but rename greet to hello", "fix this", "why is this async?"  → yes
 *
 * A question counts: the agent answers it by making the code clearer. The text given is what a
 * reader sees (hidden HTML and invisible characters already taken out by the caller).
 */
export function asksForChange(visibleText: string): boolean {
  const said = visibleText
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('>'))
    .join(' ')
    .toLowerCase();
  const words = (said.match(/[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu) ?? []).map((w) => w.replace('’', "'"));
  if (words.length === 0) return false;
  const onlyCourtesy = words.every((w) => PRAISE_WORDS.has(w) || COURTESY_WORDS.has(w));
  return !(onlyCourtesy && words.some((w) => PRAISE_WORDS.has(w)));
}

/**
 * A review in `state` with this visible body and this many inline comments that ask for a change
 * asks for one: a request for changes always does; an approval never by its body (approving says the
 * change may go in as it is), only by an inline comment that asks; a comment review by its body or a
 * comment; a dismissed or unsubmitted one never.
 */
export function reviewAsksForChange(state: string, visibleBody: string, commentsAsking: number): boolean {
  if (state === 'changes_requested') return true;
  if (state === 'approved') return commentsAsking > 0;
  if (state === 'dismissed' || state === 'pending') return false;
  return commentsAsking > 0 || asksForChange(visibleBody);
}

/** Words that thank, approve or praise ("+1" reads as the word 1). */
export const PRAISE_WORDS: ReadonlySet<string> = new Set([
  'thanks', 'thank', 'thx', 'ty', 'tysm', 'cheers', 'kudos', 'congrats', 'lgtm', 'sgtm', 'good', 'great', 'fine', 'nice',
  'neat', 'awesome', 'perfect', 'excellent', 'amazing', 'cool', 'lovely', 'love', 'beautiful', 'brilliant', 'wow', 'yay',
  'ok', 'okay', 'agreed', 'approved', 'approve', 'ship', '1',
]);

/** Words that go with praise without asking for anything ("looks good to me", "thanks for the fix"). */
export const COURTESY_WORDS: ReadonlySet<string> = new Set([
  'you', 'so', 'very', 'much', 'a', 'lot', 'many', 'looks', 'look', 'looking', 'well', 'done', 'work', 'job', 'this', 'it',
  'is', "it's", 'that', 'to', 'me', 'all', 'now', 'yes', 'indeed', 'the', 'for', 'and', 'again', 'really', 'fix', 'fixes',
  'change', 'changes', 'update', 'quick', 'here', 'from', 'side', 'my', 'just',
]);
