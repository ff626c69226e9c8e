// The suite's side of the runner ⇄ suite channel (runner side: scripts/vscode/controlServer.mjs;
// the protocol is described in scripts/vscode/runVsCodeTests.mjs). Each helper asks the runner,
// which drives the browser around the workbench, and resolves once it is done. The runner's
// HTTP server listens on a Unix socket in TASKLOOM_TEST_CONTROL_DIR; without it (desktop VS Code
// through @vscode/test-electron) runnerAvailable() is false and the helpers throw.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** Where a helper's target lives: a Playwright selector, inside `frames` (iframe selectors, outermost first). */
export interface PageTarget {
  selector: string;
  frames?: string[];
  timeoutMs?: number;
}

/** The iframes around a webview's own document: the host frame, then the frame with the content. */
export const WEBVIEW_FRAMES = ['iframe.webview.ready', 'iframe#active-frame'];

const controlDir = process.env.TASKLOOM_TEST_CONTROL_DIR;
const socketPath = controlDir ? join(controlDir, 'runner.sock') : undefined;
const phaseFile = controlDir ? join(controlDir, 'phase') : undefined;

/** True when the suite runs under scripts/vscode/runVsCodeTests.mjs and can use these helpers. */
export function runnerAvailable(): boolean {
  return socketPath !== undefined && existsSync(socketPath);
}

/** The session's name (TASKLOOM_TEST_SESSION), or 'default' outside the runner. */
export function testSession(): string {
  return process.env.TASKLOOM_TEST_SESSION ?? 'default';
}

/**
 * 1 on the first window of the session, N+1 after the N-th reloadWindow(). Synchronous, so a
 * test module can register different tests per phase.
 */
export function testPhase(): number {
  if (!phaseFile || !existsSync(phaseFile)) return 1;
  return Number(readFileSync(phaseFile, 'utf8').trim()) || 1;
}

/** POSTs `args` to the runner's `action` and resolves with its JSON answer. */
export function askRunner<T = Record<string, unknown>>(action: string, args: object = {}): Promise<T> {
  if (!runnerAvailable()) {
    return Promise.reject(
      new Error(`runner action "${action}" needs scripts/vscode/runVsCodeTests.mjs (no runner socket in this window)`),
    );
  }
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, method: 'POST', path: `/${action}`, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let answer: Record<string, unknown> = {};
          try {
            answer = text ? JSON.parse(text) : {};
          } catch {
            answer = { error: text };
          }
          if (res.statusCode === 200) resolve(answer as T);
          else reject(new Error(`runner action "${action}" failed: ${String(answer.error ?? res.statusCode)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs a command by its palette title (e.g. 'Preferences: Open User Settings (JSON)'). */
export async function runPaletteCommand(title: string): Promise<void> {
  await askRunner('command', { title });
}

/** Types into whatever has the focus (a quick input, an editor, a webview field). */
export async function typeText(text: string): Promise<void> {
  await askRunner('keyboard', { type: text });
}

/** Presses keys in order, Playwright names: 'Enter', 'Escape', 'Control+S', 'ArrowDown'. */
export async function pressKey(...keys: string[]): Promise<void> {
  await askRunner('keyboard', { press: keys });
}

/** Clicks the first element matching the target (waits until it is visible and stable); `button: 'right'` opens its context menu. */
export async function click(target: PageTarget & { button?: 'left' | 'right' }): Promise<void> {
  await askRunner('click', target);
}

/** Waits until the first element matching the target is visible (or `state`). */
export async function waitFor(
  target: PageTarget & { state?: 'attached' | 'detached' | 'visible' | 'hidden' },
): Promise<void> {
  await askRunner('waitFor', target);
}

/** Picks the option with this value in the first <select> matching the target, as a person would. */
export async function selectOption(target: PageTarget & { value: string }): Promise<void> {
  await askRunner('selectOption', target);
}

/** The rendered text of every element matching the target, now (no waiting). */
export async function readTexts(target: PageTarget): Promise<string[]> {
  return (await askRunner<{ texts: string[] }>('texts', target)).texts;
}

/** Each matching element's text and how much of its width shows (1 whole, 0 none): what clipping to its box leaves of it. */
export async function readShownTexts(target: PageTarget): Promise<Array<{ text: string; shown: number }>> {
  return (await askRunner<{ shown: Array<{ text: string; shown: number }> }>('shownTexts', target)).shown;
}

/**
 * Has the next webview load as the window's first one does: every webview of the VS Code server
 * shares one service-worker scope, and a new one waits for its worker to take over from the last
 * one's (the runner forgets them before each reload for the same reason).
 */
export async function forgetWebviewWorkers(): Promise<void> {
  await askRunner('forgetWebviewWorkers');
}

/**
 * Reloads the window for real. The current extension host (this suite included) ends; VS Code
 * starts a new one and calls run() again with testPhase() one higher. Never resolves: make it
 * the last thing the phase does.
 */
export async function reloadWindow(): Promise<never> {
  if (!phaseFile) throw new Error('reloadWindow needs scripts/vscode/runVsCodeTests.mjs');
  const next = testPhase() + 1;
  writeFileSync(phaseFile, `${next}\n`);
  console.log(`[taskloom-test] reloading the window: phase ${next} follows`);
  await askRunner('reload');
  return new Promise<never>(() => {});
}
