// Screenshots of the whole window as a person sees it (tree, webviews, notifications), taken
// by the runner at the moment the suite chooses: `await takeScreenshot('tree')` →
// test-artifacts/screenshots/<session>-tree.png. Wait for what you want in the picture first
// (e.g. waitFor() a tree item); the runner photographs the page as it is.
import { askRunner, runnerAvailable, testSession } from './runnerControl';

/** Saves a screenshot and resolves with its path; without the runner it logs and resolves undefined. */
export async function takeScreenshot(name: string): Promise<string | undefined> {
  if (!runnerAvailable()) {
    console.log(`[taskloom-test] screenshot "${name}" skipped: no runner in session ${testSession()}`);
    return undefined;
  }
  const { path } = await askRunner<{ path: string }>('screenshot', { name });
  return path;
}
