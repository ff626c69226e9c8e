// One way to show when something happened, wherever a time is shown: local wall-clock time.

/**
 * The local wall-clock time of an ISO timestamp ("14:03:27"), with the date when it is not `today`
 * ("2026-12-01 14:03:27"): the ledger, the timeline, the transcript and the gate output say the same.
 */
export function formatClock(iso: string, today = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  return sameDay ? time : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${time}`;
}
