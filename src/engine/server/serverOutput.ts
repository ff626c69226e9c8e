import type { ActivityParams, EventsParams } from '../../protocol/engineProtocol';

/** What the server tells the editor without being asked, and its log. */
export interface ServerOutput {
  events(params: EventsParams): void;
  activity(params: ActivityParams): void;
  log(message: string): void;
}
