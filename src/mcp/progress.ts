import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Says how long work goes on, to a client that asked for progress (a progressToken); a no-op for one that did not. */
export function progressReporter(extra: ToolExtra): (message: string) => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => undefined;
  let progress = 0;
  return (message) => {
    progress += 1;
    // A client that went away misses the word; the work goes on.
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => undefined);
  };
}
