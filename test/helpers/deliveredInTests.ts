// Apart from deliveryRepo.ts because it loads node:test, which prints TAP to stdout in any
// process that imports it: the pullRequest VS Code session's fixture speaks JSON on its stdout.
import { after } from 'node:test';
import { deliveredRun, type Delivery } from './deliveryRepo';

const deliveries: Delivery[] = [];
// Root-level: in each test file (its own process) that makes deliveries, they are removed after its tests.
after(async () => {
  for (const d of deliveries.splice(0)) await d.cleanup();
});

/** deliveredRun, cleaned up (its scripted GitHub closed, its folders removed) after the test file's tests. */
export async function delivered(options?: Parameters<typeof deliveredRun>[0]): Promise<Delivery> {
  const d = await deliveredRun(options);
  deliveries.push(d);
  return d;
}
