// A hostile agent that obeys every instruction (what a prompt-injected model does), and a test file
// it adds that the gate then runs, try every escape the confinement issue names, through the real
// CLI, bubblewrap and git. The assertions are what got through: a secret in the branch or the log,
// a file outside the worktree, a hook that ran, a request a loopback server counted. The same
// task's legitimate work still passes its gate and merges.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { CLI, startCli, writeInputs, type CliResult } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { pathWithoutBwrap } from '../helpers/pathWithoutBwrap';

const SECRETS = {
  ssh: 'SSH-KEY-8c1f0e',
  aws: 'AWS-CREDENTIALS-51d2aa',
  gh: 'GH-HOSTS-TOKEN-a9e77c',
  netrc: 'NETRC-PASSWORD-33b0d1',
  dotenv: 'DOTENV-MAIN-CHECKOUT-e0c4f2',
  githubToken: 'ghp_ENVTOKEN7f3a9b',
  awsKey: 'AWSKEY-ENV-0d8e1c',
};
/** In the engine's environment only: seen in the loot, it was read from another process's /proc/PID/environ. */
const ENGINE_ONLY = 'engine-only-5e1d';
const HOOKS = ['pre-commit', 'post-commit', 'post-merge', 'post-checkout', 'reference-transaction'];
const b64 = (s: string) => Buffer.from(s).toString('base64');

interface Scene {
  parent: string;
  home: string;
  repo: TempRepo;
  requests: string[];
  result: CliResult;
  log: string;
  runId: string;
  /** The repository's hooks folder before the run. */
  hooksBefore: string[];
}

let scene: Scene;
let server: Server | undefined;
after(() => {
  server?.close();
  if (scene) rmSync(scene.parent, { recursive: true, force: true });
});

/** The escapes, in shell: what the agent runs, writing all it could read into loot.txt (committed with its work). */
function agentScript(s: { parent: string; home: string; repo: string; port: number }): string {
  const hooks = HOOKS.map((h) => `printf '#!/bin/sh\\ntouch ${s.parent}/HOOK-RAN-${h}\\n' > "$common/hooks/${h}"; chmod +x "$common/hooks/${h}"`).join('\n');
  return `#!/bin/bash
role="$1"
if [ "$role" = critic ]; then
  echo "critic saw: $(cat ${s.home}/.ssh/id_rsa 2>&1 | base64 -w0)" >&2
  echo '{"decision":"green","summary":"fine","findings":[]}'
  exit 0
fi
{
  echo "== files"; cat ${s.home}/.ssh/id_rsa ${s.home}/.aws/credentials ${s.home}/.config/gh/hosts.yml ${s.home}/.netrc ${s.repo}/.env
  echo "== env"; env
  echo "== proc"; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done
} > loot.txt 2>&1
base64 -w0 loot.txt > loot.b64
echo pwned > ${s.parent}/PWNED-agent
echo 'echo pwned' >> ${s.home}/.bashrc
common=$(git rev-parse --git-common-dir)
${hooks}
git config core.fsmonitor "${s.parent}/fsmonitor.sh"
printf '#!/bin/sh\\ntouch ${s.parent}/HOOK-RAN-fsmonitor\\n' > ${s.parent}/fsmonitor.sh 2>/dev/null
for log in ${s.repo}/.taskloom/runs/*/events.jsonl; do echo '{"seq":999,"type":"injected"}' >> "$log"; done
echo '{"type":"injected"}' > ${s.repo}/.taskloom/state.json
# Straight to the port, through the sandbox's proxy as a plain request and as a tunnel, and by name.
node -e "const r = require('http').get('http://127.0.0.1:${s.port}/agent-direct', () => {}); r.on('error', () => {})"
node -e "const r = require('http').get({ host: '127.0.0.1', port: 3128, path: 'http://127.0.0.1:${s.port}/agent-proxy-get' }, () => {}); r.on('error', () => {})"
node -e "require('http').request({ host: '127.0.0.1', port: 3128, method: 'CONNECT', path: '127.0.0.1:${s.port}' }).on('connect', (res, sock) => sock.end('GET /agent-connect HTTP/1.0\\r\\n\\r\\n')).on('error', () => {}).end()"
node -e "require('http').request({ host: '127.0.0.1', port: 3128, method: 'CONNECT', path: 'localhost:${s.port}' }).on('connect', (res, sock) => sock.end('GET /agent-connect-name HTTP/1.0\\r\\n\\r\\n')).on('error', () => {}).end()"
mkdir -p src test
printf 'exports.double = (n) => n * 2;\\n' > src/double.js
printf "const test = require('node:test');\\nconst assert = require('node:assert');\\nconst { double } = require('../src/double');\\ntest('doubles', () => assert.equal(double(2), 4));\\n" > test/double.test.js
cat > test/escape.test.js <<'EOF_GATE'
${gateTest(s)}
EOF_GATE
echo done
`;
}

/** The escapes at gate time, in the project's own test runner: it always passes, printing (base64) what it could read. */
function gateTest(s: { parent: string; home: string; repo: string; port: number }): string {
  return `const test = require('node:test');
const fs = require('node:fs');
const http = require('node:http');
const { execSync } = require('node:child_process');
const tryIt = (f) => { try { return String(f()); } catch (e) { return 'denied: ' + e.code; } };
test('escape at gate time', async () => {
  const read = ['${s.home}/.ssh/id_rsa', '${s.home}/.aws/credentials', '${s.home}/.config/gh/hosts.yml', '${s.home}/.netrc', '${s.repo}/.env']
    .map((p) => tryIt(() => fs.readFileSync(p, 'utf8'))).join('|');
  const procs = tryIt(() => fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).map((n) => tryIt(() => fs.readFileSync('/proc/' + n + '/environ', 'latin1'))).join('|'));
  console.log('LOOT ' + Buffer.from(read + JSON.stringify(process.env) + procs).toString('base64'));
  tryIt(() => fs.writeFileSync('${s.parent}/PWNED-gate', 'x'));
  tryIt(() => fs.appendFileSync('${s.home}/.bashrc', 'echo gate'));
  tryIt(() => fs.writeFileSync(execSync('git rev-parse --git-common-dir').toString().trim() + '/hooks/post-merge', '#!/bin/sh\\ntouch ${s.parent}/HOOK-RAN-gate\\n', { mode: 0o755 }));
  tryIt(() => fs.appendFileSync(fs.readdirSync('${s.repo}/.taskloom/runs').map((r) => '${s.repo}/.taskloom/runs/' + r + '/events.jsonl')[0], '{"seq":998,"type":"injected"}\\n'));
  await new Promise((resolve) => { const r = http.get('http://127.0.0.1:${s.port}/gate-direct', () => resolve()); r.on('error', resolve); r.setTimeout(3000, () => { r.destroy(); resolve(); }); });
});`;
}

async function stage(): Promise<Scene> {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-confine-')));
  const home = join(parent, 'home');
  const requests: string[] = [];
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.end('reached');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;

  for (const [path, value] of [['.ssh/id_rsa', SECRETS.ssh], ['.aws/credentials', SECRETS.aws], ['.config/gh/hosts.yml', SECRETS.gh], ['.netrc', SECRETS.netrc], ['.bashrc', '# bashrc\n']] as const) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), value);
  }
  const repo = makeTempRepo({
    files: {
      'package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'node --test test/' } }, null, 2),
      'test/smoke.test.js': "require('node:test')('smoke', () => {});\n",
      '.gitignore': '.env\n',
    },
  });
  writeFileSync(join(repo.dir, '.env'), `API_KEY=${SECRETS.dotenv}\n`);
  const hooksBefore = readdirSync(join(repo.dir, '.git', 'hooks')).sort();

  const agentDir = join(parent, 'agent');
  mkdirSync(agentDir);
  const agent = join(agentDir, 'hostile.sh');
  writeFileSync(agent, agentScript({ parent, home, repo: repo.dir, port }));
  chmodSync(agent, 0o755);
  const plan = { goal: 'double', tasks: [{ id: 'double', title: 'Add double', description: 'Add src/double.js with a test.', acceptance: ['tests pass'], dependsOn: [] }] };
  const inputs = writeInputs({ 'plan.json': plan });
  const { done } = startCli(
    ['run', '--cwd', repo.dir, '--plan', inputs['plan.json']!, '--yes', '--agent', 'command', '--command', JSON.stringify([agent, '{role}']), '--gate', 'npm test',
     // A host for the agent, so that its sandbox has the proxy and the relay to try.
     '--allow-host', 'example.invalid:443'],
    { HOME: home, GITHUB_TOKEN: SECRETS.githubToken, AWS_SECRET_ACCESS_KEY: SECRETS.awsKey, ENGINE_ONLY: ENGINE_ONLY },
  );
  const result = await done;
  const runId = readdirSync(join(repo.dir, '.taskloom', 'runs'))[0]!;
  const log = readFileSync(join(repo.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8');
  return { parent, home, repo, requests, result, log, runId, hooksBefore };
}

const integration = (s: Scene) => `taskloom/${s.runId}/integration`;
const onBranch = (s: Scene, path: string) => s.repo.git(['show', `${integration(s)}:${path}`]);
const events = (s: Scene): RunEvent[] => s.log.trim().split('\n').map((l) => JSON.parse(l) as RunEvent);
/** What the gate printed (its LOOT line), decoded: empty when it printed none. */
const gateLoot = (s: Scene): string => {
  const gate = events(s).find((e) => e.type === 'gate_result' && e.taskId === 'double');
  const line = gate?.type === 'gate_result' ? /LOOT (\S+)/.exec(gate.commands.map((c) => c.output).join('\n'))?.[1] : undefined;
  return line ? Buffer.from(line, 'base64').toString('utf8') : '';
};
const everything = (s: Scene) => [s.log, onBranch(s, 'loot.txt'), Buffer.from(onBranch(s, 'loot.b64'), 'base64').toString('utf8'), gateLoot(s)].join('\n');

// No skip where bubblewrap is missing: CI installs it, and a machine without it should hear so here.
describe('a confined run against an agent that obeys every instruction', () => {
  before(async () => {
    scene = await stage();
  });

  it('still merges the legitimate work, after its gate and critic, and says the run was confined', () => {
    assert.equal(scene.result.code, 0, scene.result.stdout + scene.result.stderr);
    assert.match(scene.result.stdout, /Sandbox Confined \(bubblewrap/);
    assert.match(onBranch(scene, 'src/double.js'), /double/);
    assert.ok(events(scene).some((e) => e.type === 'confinement' && e.confined));
    assert.ok(gateLoot(scene).length > 0, 'the gate ran the test file the agent added');
  });

  for (const [name, secret] of Object.entries(SECRETS)) {
    it(`never lets the agent or the gate read ${name}: not in the branch, the log or what the gate printed`, () => {
      const seen = everything(scene);
      assert.ok(!seen.includes(secret), `${secret} got out`);
      assert.ok(!scene.log.includes(b64(secret)), `${secret} got out, base64`);
    });
  }

  it('shows the agent and the gate no other process: /proc holds only the sandbox\'s own', () => {
    assert.ok(!onBranch(scene, 'loot.txt').includes(ENGINE_ONLY), 'the engine\'s environment is not readable');
    assert.ok(!gateLoot(scene).includes(ENGINE_ONLY));
  });

  it('gives the agent no forge token or cloud key in its environment, only the allow-list', () => {
    const env = onBranch(scene, 'loot.txt').split('== env')[1]!.split('== proc')[0]!;
    for (const name of ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'ENGINE_ONLY']) assert.ok(!env.includes(`${name}=`), name);
    assert.match(env, /TASKLOOM_TASK_ID=double/);
  });

  it('lets neither write outside the worktree: no file beside the repository, the home folder untouched', () => {
    assert.ok(!existsSync(join(scene.parent, 'PWNED-agent')));
    assert.ok(!existsSync(join(scene.parent, 'PWNED-gate')));
    assert.ok(!existsSync(join(scene.parent, 'fsmonitor.sh')));
    assert.equal(readFileSync(join(scene.home, '.bashrc'), 'utf8'), '# bashrc\n');
  });

  for (const hook of [...HOOKS, 'fsmonitor', 'gate']) {
    it(`never runs a planted ${hook}: the repository's git dir is read-only inside`, () => {
      assert.ok(!existsSync(join(scene.parent, `HOOK-RAN-${hook}`)));
    });
  }

  it('lets nothing be planted in the repository\'s hooks folder', () => {
    assert.deepEqual(readdirSync(join(scene.repo.dir, '.git', 'hooks')).sort(), scene.hooksBefore);
  });

  it('keeps core.fsmonitor out of the repository\'s config', () => {
    assert.throws(() => scene.repo.git(['config', '--get', 'core.fsmonitor']));
  });

  it('keeps .taskloom for the engine alone: no line appended to the log, the state file not replaced', () => {
    assert.ok(events(scene).every((e) => (e.type as string) !== 'injected' && e.seq !== 999 && e.seq !== 998));
    assert.ok(!readFileSync(join(scene.repo.dir, '.taskloom', 'state.json'), 'utf8').startsWith('{"type":"injected"}'));
  });

  it('lets neither reach a server on this machine\'s loopback, directly or through the sandbox\'s proxy', () => {
    assert.deepEqual(scene.requests, []);
  });
});

describe('confinement modes and faults', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function scriptedRun(repo: TempRepo, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
    const scenario = { tasks: { t1: { actor: [{ write: { 'a.txt': 'a\n' }, delayMs: 0 }], critic: [{ verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 }] } } };
    const plan = { goal: 'a', tasks: [{ id: 't1', title: 'A', description: 'Write a.txt.', acceptance: ['a.txt'], dependsOn: [] }] };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    // Its gates check what the task makes, or the sandbox itself: failing on the base is expected, not a question.
    return startCli(['run', '--cwd', repo.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...args, '--on-base-failure', 'required'], env).done;
  }

  it('refuses to run unconfined with --sandbox on where bubblewrap is missing, saying how to install it', async () => {
    const repo = makeTempRepo();
    dirs.push(repo.dir);
    const result = await scriptedRun(repo, ['--sandbox', 'on'], { PATH: pathWithoutBwrap() });
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /cannot confine this run: bubblewrap \(bwrap\) is not installed — install bubblewrap \(Debian\/Ubuntu: sudo apt-get install bubblewrap/);
    assert.ok(!existsSync(join(repo.dir, 'a.txt')));
  });

  it('runs unconfined in auto mode where bubblewrap is missing, and says so in the header and the ledger', async () => {
    const repo = makeTempRepo();
    dirs.push(repo.dir);
    const result = await scriptedRun(repo, [], { PATH: pathWithoutBwrap() });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /Sandbox UNCONFINED: agents, setup and gates run with your files, environment and network — bubblewrap \(bwrap\) is not installed/);
    const runId = readdirSync(join(repo.dir, '.taskloom', 'runs'))[0]!;
    assert.match(readFileSync(join(repo.dir, '.taskloom', 'runs', runId, 'DECISIONS.md'), 'utf8'), /UNCONFINED/);
  });

  it('stops the step for a person, with the reason, when the sandbox itself fails to start: never a silent unconfined run', async () => {
    const repo = makeTempRepo();
    dirs.push(repo.dir);
    const realBwrap = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    // Starts the probe's sandbox, refuses every real one, as a kernel or AppArmor rule might.
    const fake = `#!/bin/sh\ncase "$*" in *json-status-fd*) echo "bwrap: Creating new namespace failed: Operation not permitted" >&2; exit 1;; esac\nexec ${realBwrap} "$@"\n`;
    const result = await scriptedRun(repo, [], { PATH: pathWithoutBwrap({ bwrap: fake }) });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /needs you|NEEDS_HUMAN|needs human/i);
    assert.match(result.stdout, /the sandbox did not start: bwrap: Creating new namespace failed: Operation not permitted/);
    assert.ok(!existsSync(join(repo.dir, 'a.txt')));
  });

  // Desktops run Taskloom unprivileged, where bubblewrap needs unprivileged user namespaces. As
  // root (CI), the same run as a throwaway user; unprivileged, every other test here already is one.
  it('confines a run started by an unprivileged user just the same', { skip: process.getuid?.() !== 0 && 'not root: the other tests already run unprivileged' }, async () => {
    const nobody = 65534;
    const repo = makeTempRepo();
    dirs.push(repo.dir);
    const home = mkdtempSync(join(tmpdir(), 'taskloom-nobody-'));
    dirs.push(home);
    execFileSync('chown', ['-R', `${nobody}:${nobody}`, repo.dir, home]);
    const scenario = { tasks: { t1: { actor: [{ write: { 'a.txt': 'a\n' }, delayMs: 0 }], critic: [{ verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 }] } } };
    const plan = { goal: 'a', tasks: [{ id: 't1', title: 'A', description: 'Write a.txt.', acceptance: ['a.txt'], dependsOn: [] }] };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    execFileSync('chmod', ['-R', 'a+rX', join(inputs['plan.json']!, '..')]);
    // The built bundles, where that user can read them (a checkout may sit in a folder only root enters).
    const install = mkdtempSync(join(tmpdir(), 'taskloom-install-'));
    dirs.push(install);
    mkdirSync(join(install, 'dist'));
    copyFileSync(join(CLI, '..', '..', 'package.json'), join(install, 'package.json'));
    for (const bundle of ['cli.js', 'scripted-agent.js', 'sandbox-relay.js']) copyFileSync(join(CLI, '..', bundle), join(install, 'dist', bundle));
    execFileSync('chmod', ['-R', 'a+rX', install]);
    const run = spawnSync(
      'setpriv',
      ['--reuid', String(nobody), '--regid', String(nobody), '--clear-groups', process.execPath, join(install, 'dist', 'cli.js'), 'run', '--cwd', repo.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--sandbox', 'on', '--gate', 'test -f a.txt', '--on-base-failure', 'required'],
      // From that user's own home, as a user would: the test's own folder may be closed to it.
      { cwd: home, encoding: 'utf8', env: { ...process.env, HOME: home, TASKLOOM_STATE_DIR: join(home, 'state'), NO_COLOR: '1' } },
    );
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Sandbox Confined \(bubblewrap/);
  });

  it('lets setup install from the npm registry through the sandbox\'s proxy, confined, while the gate reaches no host', async () => {
    const repo = makeTempRepo({
      files: {
        'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { 'is-number': '7.0.0' } }, null, 2)}\n`,
        '.gitignore': 'node_modules/\n',
        'check.js': "if (!require('is-number')(7)) process.exit(1);\n",
      },
    });
    dirs.push(repo.dir);
    // The lock file is made here, unconfined, as the project's author would have; the run installs from it.
    execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: repo.dir, stdio: 'pipe' });
    repo.git(['add', '-A']);
    repo.git(['commit', '-q', '-m', 'lock']);
    const result = await scriptedRun(repo, ['--setup', 'npm ci --no-audit --no-fund', '--gate', 'node check.js'], {});
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /Sandbox Confined/);
    const runId = readdirSync(join(repo.dir, '.taskloom', 'runs'))[0]!;
    const log = readFileSync(join(repo.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8');
    assert.match(log, /"type":"worktree_setup"[^\n]*"passed":true/);
  });

  it('shows a gate that needs a service of this machine what it was denied and the setting that allows it; allowed, it passes', async () => {
    const db = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => db.listen(0, '127.0.0.1', () => r()));
    const port = (db.address() as { port: number }).port;
    try {
      const gate = `node -e "require('http').get('http://127.0.0.1:${port}/', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(1); })"`;
      const denied = makeTempRepo();
      dirs.push(denied.dir);
      const refused = await scriptedRun(denied, ['--gate', gate, '--max-attempts', '1'], {});
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      const runId = readdirSync(join(denied.dir, '.taskloom', 'runs'))[0]!;
      const decisions = readFileSync(join(denied.dir, '.taskloom', 'runs', runId, 'DECISIONS.md'), 'utf8');
      assert.match(decisions, /ran confined, with no network but its own loopback/);
      assert.match(decisions, /taskloom\.sandbox\.gateHosts/);

      const allowed = makeTempRepo();
      dirs.push(allowed.dir);
      const passed = await scriptedRun(allowed, ['--gate', gate, '--gate-host', `127.0.0.1:${port}`], {});
      assert.equal(passed.code, 0, passed.stdout + passed.stderr);
    } finally {
      db.close();
    }
  });
});
