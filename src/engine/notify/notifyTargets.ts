import { hideValues } from '../io/redactSecrets';
import { readNotifyTarget, type NotifyTarget } from '../domain/notifyTarget';

export { NotifyTargetError, type NotifyFormat, type NotifyTarget } from '../domain/notifyTarget';

/** Reads a target (domain/notifyTarget.ts); its secret parts are hidden from everything Taskloom writes from now on. */
export function parseNotifyTarget(given: string): NotifyTarget {
  const { secretParts, ...target } = readNotifyTarget(given);
  hideValues(secretParts);
  return target;
}

/** The targets of TASKLOOM_NOTIFY: URLs separated by whitespace or commas. */
export function notifyTargetsFromEnv(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}
