import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interactiveSession } from '../../src/engine/agents/interactiveSession';

const cwd = '/w/task';
const env = { HOME: '/home/u', PATH: '/usr/bin', SHELL: '/bin/zsh' };

describe('the session a person takes a task over in', () => {
  it('resumes Claude Code\'s session with its repository settings and MCP servers kept out, and its writing tools', () => {
    const session = interactiveSession({ kind: 'claude', binaryPath: 'claude', models: {} }, { sessionId: 'S1', model: 'opus', confined: true, cwd, env });
    assert.equal(session.program, 'claude');
    assert.deepEqual(session.args, ['--resume', 'S1', '--model', 'opus', '--restricted', '--strict-mcp-config', '--tools', 'Read,Edit,Write,Glob,Grep,Bash']);
    assert.equal(session.resumes, 'S1');
    assert.deepEqual(session.needs.writable, ['/home/u/.claude'], 'its sessions are where resume finds them');
  });

  it('resumes a Codex session with the run\'s overrides; its own sandbox only where Taskloom\'s does not hold it', () => {
    const codex = { kind: 'codex' as const, binaryPath: 'codex', models: {}, configOverrides: ['model_provider="local"'] };
    assert.deepEqual(interactiveSession(codex, { sessionId: 'T1', confined: true, cwd, env }).args, [
      'resume',
      '-c',
      'model_provider="local"',
      '--dangerously-bypass-approvals-and-sandbox',
      'T1',
    ]);
    assert.deepEqual(interactiveSession(codex, { confined: false, cwd, env }).args, ['-c', 'model_provider="local"', '--sandbox', 'workspace-write'], 'no session: a new one');
  });

  it('opens the user\'s shell for an agent without sessions of its own', () => {
    const session = interactiveSession({ kind: 'command', argv: ['aider', '{prompt_file}'], models: {} }, { confined: true, cwd, env });
    assert.deepEqual([session.program, session.command, session.args], ['shell', '/bin/zsh', []]);
    assert.equal(interactiveSession({ kind: 'scripted', scriptPath: '/s.json' }, { confined: true, cwd, env: { PATH: '/usr/bin' } }).command, '/bin/sh');
  });
});
