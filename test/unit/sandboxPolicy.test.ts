// The confinement policy as data: what each role may read, write, see in its environment and
// reach, and the bubblewrap arguments that enforce it. The real sandbox is confinement.test.ts's.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/engine/domain/sandboxSettings';
import { bubblewrapArgs, type PathKind } from '../../src/engine/sandbox/bubblewrapArgs';
import { EgressProxy } from '../../src/engine/sandbox/egressProxy';
import { allowedEnvNames, filterEnv } from '../../src/engine/sandbox/envAllowList';
import { hostPortOfUrl, parseHostPort, sameHostPort } from '../../src/engine/sandbox/hostPort';
import { pathKind, policyFor } from '../../src/engine/sandbox/policyFor';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A home with a toolchain and a secret, and a repository with a linked worktree, as git lays them out. */
function layout() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-policy-')));
  dirs.push(root);
  const home = join(root, 'home');
  mkdirSync(join(home, '.nvm'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.netrc'), 'machine x password y\n');
  const repo = join(root, 'repo');
  const gitDir = join(repo, '.git', 'worktrees', 't1');
  mkdirSync(gitDir, { recursive: true });
  writeFileSync(join(gitDir, 'commondir'), '../..\n');
  const worktree = join(repo, '.taskloom', 'worktrees', 'run', 't1');
  mkdirSync(worktree, { recursive: true });
  writeFileSync(join(worktree, '.git'), `gitdir: ${gitDir}\n`);
  const scratch = join(root, 'scratch');
  mkdirSync(scratch);
  return { root, home, repo, worktree, scratch };
}

describe('the policy of a process start', () => {
  it('lets a writing role write its worktree and scratch folder only; the git dir and the .git pointer stay read-only', () => {
    const l = layout();
    const policy = policyFor(DEFAULT_SANDBOX_SETTINGS, { role: 'actor', checkout: l.worktree, writes: true, agent: 'claude' }, { scratch: l.scratch, home: l.home, path: '' });
    assert.deepEqual(policy.writable, [l.scratch, l.worktree]);
    assert.ok(policy.readable.includes(join(l.repo, '.git')));
    assert.ok(policy.readable.includes(join(l.worktree, '.git')));
    assert.ok(!policy.readable.includes(l.repo), 'not the main checkout');
    assert.ok(policy.readable.includes(join(l.home, '.nvm')), 'a toolchain in the home folder');
    assert.ok(policy.hidden.includes(join(l.home, '.ssh')) && policy.hidden.includes(join(l.home, '.netrc')));
  });

  it('lets a reading role only read its checkout', () => {
    const l = layout();
    const policy = policyFor(DEFAULT_SANDBOX_SETTINGS, { role: 'critic', checkout: l.worktree, writes: false, agent: 'claude' }, { scratch: l.scratch, home: l.home, path: '' });
    assert.deepEqual(policy.writable, [l.scratch]);
    assert.ok(policy.readable.includes(l.worktree));
  });

  it('gives each role its own hosts: a gate none by default, setup the registries, an agent its API and allowedHosts', () => {
    const l = layout();
    const settings = { ...DEFAULT_SANDBOX_SETTINGS, allowedHosts: ['docs.internal:443'], gateHosts: ['127.0.0.1:5432'] };
    const hosts = (role: 'gate' | 'setup' | 'actor') =>
      policyFor(settings, { role, checkout: l.worktree, writes: true }, { scratch: l.scratch, home: l.home, path: '', needs: { hosts: ['127.0.0.1:8080'] } }).hosts.map((h) => `${h.host}:${h.port}`);
    assert.deepEqual(hosts('gate'), ['127.0.0.1:5432']);
    assert.deepEqual(hosts('setup'), [...DEFAULT_SANDBOX_SETTINGS.setupHosts, '127.0.0.1:5432']);
    assert.deepEqual(hosts('actor'), ['127.0.0.1:8080', 'docs.internal:443']);
    assert.deepEqual(policyFor(DEFAULT_SANDBOX_SETTINGS, { role: 'gate', checkout: l.worktree, writes: true }, { scratch: l.scratch, home: l.home, path: '' }).hosts, []);
  });
});

describe('bubblewrap arguments', () => {
  it('mounts shallow before deep, so the worktree is writable inside a hidden repository and a secret is hidden inside a readable folder', () => {
    const l = layout();
    const policy = policyFor({ ...DEFAULT_SANDBOX_SETTINGS, readPaths: ['~'] }, { role: 'actor', checkout: l.worktree, writes: true }, { scratch: l.scratch, home: l.home, path: '' });
    const args = bubblewrapArgs(policy, pathKind);
    const at = (flag: string, path: string) => args.findIndex((a, i) => a === flag && args[i + 1] === path);
    assert.ok(at('--tmpfs', l.home) >= 0 && at('--tmpfs', l.home) < at('--ro-bind', l.home), 'the home folder is empty, then what readPaths names comes back');
    assert.ok(at('--ro-bind', join(l.repo, '.git')) < at('--bind', l.worktree));
    assert.ok(at('--bind', l.worktree) < at('--ro-bind', join(l.worktree, '.git')), 'the pointer goes read-only over the writable worktree');
    assert.ok(at('--tmpfs', join(l.home, '.ssh')) > at('--ro-bind', l.home), 'a secret folder is hidden after its parent is shown');
    assert.ok(args.includes('--unshare-all') && args.includes('--die-with-parent'));
    assert.ok(!args.includes('--share-net'));
    assert.equal(args.at(-2), '--chdir');
  });

  it('hides nothing that is not shown, and shows a missing path nowhere', () => {
    const kinds = new Map<string, PathKind>([['/usr', { kind: 'dir' }], ['/bin', { kind: 'symlink', target: 'usr/bin' }]]);
    const args = bubblewrapArgs(
      { role: 'gate', cwd: '/w', writable: ['/w'], readable: ['/nowhere'], hidden: ['/elsewhere/secret', '/usr/secret'], hosts: [] },
      (p) => kinds.get(p) ?? (p === '/w' ? { kind: 'dir' } : p === '/usr/secret' ? { kind: 'file' } : { kind: 'missing' }),
    );
    assert.ok(args.join(' ').includes('--symlink usr/bin /bin'));
    assert.ok(!args.includes('/nowhere'));
    assert.ok(!args.includes('/elsewhere/secret'));
    assert.ok(args.join(' ').includes('--ro-bind /dev/null /usr/secret'));
  });
});

describe('the environment allow-list', () => {
  const env = { PATH: '/bin', HOME: '/h', LC_ALL: 'C', GITHUB_TOKEN: 'g', AWS_SECRET_ACCESS_KEY: 'a', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'o', TASKLOOM_TASK_ID: 't', MYTOOL_HOME: 'm' };

  it('passes a gate no credential at all, and an agent only its own', () => {
    assert.deepEqual(Object.keys(filterEnv(env, allowedEnvNames(undefined, []))).sort(), ['HOME', 'LC_ALL', 'PATH', 'TASKLOOM_TASK_ID']);
    assert.deepEqual(Object.keys(filterEnv(env, allowedEnvNames('claude', []))).sort(), ['ANTHROPIC_API_KEY', 'HOME', 'LC_ALL', 'PATH', 'TASKLOOM_TASK_ID']);
    assert.ok(!('ANTHROPIC_API_KEY' in filterEnv(env, allowedEnvNames('codex', []))));
    assert.equal(filterEnv(env, allowedEnvNames(undefined, ['MYTOOL_*'])).MYTOOL_HOME, 'm');
  });
});

describe('host and port', () => {
  it('parses host:port exactly and a base URL to its host and port', () => {
    assert.deepEqual(parseHostPort('Example.COM:443'), { host: 'example.com', port: 443 });
    assert.deepEqual(parseHostPort('[::1]:8080'), { host: '::1', port: 8080 });
    for (const bad of ['example.com', 'example.com:0', 'example.com:70000', ':80', 'a b:1']) assert.equal(parseHostPort(bad), null, bad);
    assert.deepEqual(hostPortOfUrl('http://127.0.0.1:9000/v1'), { host: '127.0.0.1', port: 9000 });
    assert.deepEqual(hostPortOfUrl('https://api.anthropic.com'), { host: 'api.anthropic.com', port: 443 });
    assert.equal(hostPortOfUrl('file:///x'), null);
    assert.ok(sameHostPort({ host: 'localhost', port: 1 }, { host: '127.0.0.1', port: 1 }));
    assert.ok(!sameHostPort({ host: 'example.com', port: 443 }, { host: 'example.com', port: 80 }));
  });
});

describe('the egress proxy', () => {
  it('tunnels to an allowed host:port only, and counts what it refused', async () => {
    const server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-proxy-')));
    dirs.push(dir);
    const socketPath = join(dir, 'egress.sock');
    const proxy = await EgressProxy.listen(socketPath, [{ host: '127.0.0.1', port }]);
    const connect = (target: string) =>
      new Promise<number>((resolve) => {
        request({ socketPath, method: 'CONNECT', path: target })
          .on('connect', (res, socket) => {
            socket.destroy();
            resolve(res.statusCode ?? 0);
          })
          .on('response', (res) => resolve(res.statusCode ?? 0))
          .on('error', () => resolve(-1))
          .end();
      });
    try {
      assert.equal(await connect(`127.0.0.1:${port}`), 200);
      assert.equal(await connect(`localhost:${port}`), 200, 'the same loopback by name');
      assert.equal(await connect(`127.0.0.1:${port + 1}`), 403);
      assert.equal(await connect('example.com:443'), 403);
      assert.deepEqual(proxy.blocked, [`127.0.0.1:${port + 1}`, 'example.com:443']);
    } finally {
      await proxy.close();
      server.close();
    }
  });
});
