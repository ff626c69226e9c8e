import type { PrepareDemoParams, PrepareDemoResult } from '../../protocol/engineProtocol';
import { demoFolderAt, demoRunSettings, isDemoFolder, makeDemoFolder } from '../demo/demoFolder';

/** A person can watch each step at this pace (the CLI demo's default). */
const DEMO_DELAY_MS = 400;

/** The demo in a folder, made there when it is new or empty (see PrepareDemoRequest); the editor then runs it as a plan file. */
export async function prepareDemo(params: PrepareDemoParams): Promise<PrepareDemoResult> {
  const made = !isDemoFolder(params.folder);
  const folder = made ? await makeDemoFolder(params.folder, params.delayMs ?? DEMO_DELAY_MS) : demoFolderAt(params.folder);
  return { planFile: folder.planFile, settings: demoRunSettings(folder), made };
}
