import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WebhookBody } from '../../../src/engine/notify/notifyRequest';
import { SUITE_GOAL } from '../fixtures/scenario';
import { quickInput } from './pages/workbenchPage';
import { pressKey, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { settled, startGoalAwaitingApproval, taskloom, waitFor, workspaceFolder } from './vscodeUtil';

/** Every file under `dir` (recursively), as text. */
const filesUnder = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).map((name) => join(dir, name)).filter((path) => statSync(path).isFile()).map((path) => readFileSync(path, 'latin1'));

/**
 * Word of the runs the editor drives, to a webhook on loopback that this test plays: the user adds
 * it with Add Notification Target… (the URL, with its token, typed into a password box, kept in
 * VS Code's secret storage), a run sends plan ready and its end there, and the URL is in no
 * setting, log or run file.
 */
suite('Notification targets', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  const received: WebhookBody[] = [];
  let receiver: Server;
  let base = '';
  const secret = 'T0KEN-8c1f-d2e5-secret';

  suiteSetup(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (req.url?.includes(secret)) received.push(JSON.parse(body) as WebhookBody);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  suiteTeardown(() => receiver.close());

  test('Add Notification Target… refuses what is not one, keeps the URL in the secret storage and only its name in the settings', async () => {
    const api = await taskloom();
    const added = vscode.commands.executeCommand('taskloom.addNotificationTarget');
    await quickInput.saying('Add Notification Target (1/2)');
    await typeText('teams+https://example.com/hook');
    await quickInput.saying('"teams" is not a notification format');
    await takeScreenshot('notify-target-refused');
    await pressKey('Control+A');
    await typeText(`${base}/hooks/${secret}`);
    await pressKey('Enter');
    await quickInput.saying('(2/2)');
    await takeScreenshot('notify-target-name');
    await pressKey('Enter');
    await added;
    assert.deepEqual(vscode.workspace.getConfiguration('taskloom').inspect<string[]>('notify')?.globalValue, ['secret:webhook-127.0.0.1']);
    assert.equal(await api.services.context.secrets.get('taskloom.notify.webhook-127.0.0.1'), `${base}/hooks/${secret}`);
  });

  test('a run the editor drives sends plan ready and its end to the target; its URL is in no log or run file', async () => {
    const api = await taskloom();
    const entry = await startGoalAwaitingApproval(api, folder, SUITE_GOAL);
    const runId = entry.summary.runId;
    // Nobody approves it within the burst window: the plan's waiting is word of its own.
    const planReady = await waitFor('plan ready at the webhook', () => received.find((body) => body.run.id === runId && body.state === 'awaiting_approval'));
    assert.match(planReady.reason, /The plan \(5 tasks\) is ready for your approval/);

    await vscode.commands.executeCommand('taskloom.approvePlan', { folder, runId });
    await settled(api, folder, runId);
    const end = await waitFor('the run\'s end at the webhook', () => received.find((body) => body.run.id === runId && body.lines.some((line) => line.startsWith('The run '))));
    assert.equal(end.run.goal, SUITE_GOAL);
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await takeScreenshot('notify-run-ended');

    const logs = filesUnder(api.services.context.logUri.fsPath);
    assert.ok(logs.length > 0, 'the extension keeps a log');
    for (const text of [...logs, ...filesUnder(join(folder, '.taskloom'))]) assert.ok(!text.includes(secret), 'the target\'s token is written nowhere');
  });

  test('Remove Notification Target… takes the target out of the settings and the secret storage', async () => {
    const api = await taskloom();
    const removed = vscode.commands.executeCommand('taskloom.removeNotificationTarget');
    await quickInput.rowShown('webhook-127.0.0.1');
    await pressKey('Enter');
    await removed;
    assert.deepEqual(vscode.workspace.getConfiguration('taskloom').inspect<string[]>('notify')?.globalValue, []);
    assert.equal(await api.services.context.secrets.get('taskloom.notify.webhook-127.0.0.1'), undefined);
  });
});
