import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { DEMO_PLAN_PATH, DEMO_SCENARIO_PATH } from '../../engine/domain/demoLayout';
import { PrepareDemoRequest } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { approveAndDrive, planGoal } from '../plans/planning';
import { runCommand } from '../runCommand';

/** The folder a window was opened on to run the demo in: the window that opens it runs it (runPendingDemo). */
const DEMO_TO_RUN = 'taskloom.demoToRun';

const isDemoFolder = (folder: string): boolean => existsSync(join(folder, DEMO_PLAN_PATH)) && existsSync(join(folder, DEMO_SCENARIO_PATH));

/**
 * Run the Demo: a five-task run of the scripted agent on a small real project, no API key. It runs
 * in this window when the workspace is the demo already, or is empty (the window opens the demo's
 * new folder, then runs it). A window on another project asks first, then opens the demo in a new
 * window, which runs it.
 */
export async function runDemo(services: Services): Promise<void> {
  const folders = services.controller.folders();
  const demo = folders.find(isDemoFolder);
  if (demo) return runDemoIn(services, demo);
  if (folders.length > 0) {
    const here = folders.map((f) => basename(f)).join(', ');
    const agreed = await services.confirm('Run the demo in a new window?', `This window has ${here} open. The demo makes its own small project in a new folder and runs there.`, 'Open New Window');
    if (!agreed) return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-demo-'));
  try {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Taskloom: making the demo project…' }, () =>
      services.engine.request(PrepareDemoRequest.type, { folder: dir }),
    );
  } catch (error) {
    showError('make the demo project', error);
    return;
  }
  await services.context.globalState.update(DEMO_TO_RUN, dir);
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(dir), { forceNewWindow: folders.length > 0 });
}

/** On activation: the demo this window was opened on to run, runs now. */
export async function runPendingDemo(services: Services): Promise<void> {
  const pending = services.context.globalState.get<string>(DEMO_TO_RUN);
  const folder = pending && services.controller.folders().find((f) => resolve(f) === resolve(pending));
  if (!folder) return;
  await services.context.globalState.update(DEMO_TO_RUN, undefined);
  await runDemoIn(services, folder);
}

/** Plans the demo's run from its plan file, shows it, and drives it without asking: the demo's plan needs no approval. */
async function runDemoIn(services: Services, folder: string): Promise<void> {
  let prepared;
  try {
    prepared = await services.engine.request(PrepareDemoRequest.type, { folder });
  } catch (error) {
    showError('run the demo', error);
    return;
  }
  const planned = await planGoal(services, folder, { planFile: prepared.planFile }, prepared.settings);
  if (!('result' in planned)) return;
  const ref = { folder, runId: planned.result.runId };
  await runCommand('taskloom.showRun', ref);
  await approveAndDrive(services, ref, undefined, 'autopilot');
}
