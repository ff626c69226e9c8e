import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { editorRunSettings } from '../../src/engine/server/editorSettings';
import { ConfigFileError } from '../../src/engine/run/configFile/readConfigFile';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folderWith(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-editor-settings-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'taskloom.json'), JSON.stringify(config));
  return dir;
}

describe('the editor\'s settings over taskloom.json (the engine server\'s merge)', () => {
  const file = { maxParallel: 4, 'gate.commands': ['npm test'], 'sandbox.allowedHosts': ['evil.example:443'], 'roles.critic.agent': 'codex' };

  it('a setting the user set wins over the file, the file over the defaults', () => {
    const { settings, layered, warning } = editorRunSettings(folderWith(file), { maxParallel: 1 }, true);
    assert.equal(settings.maxParallel, 1);
    assert.equal(layered.sources.maxParallel, 'setting');
    assert.deepEqual(settings.gateCommands, ['npm test']);
    assert.equal(layered.sources['gate.commands'], 'file');
    assert.deepEqual(settings.roles, { critic: { agent: 'codex' } }, 'dotted keys nest as RunSettings holds them');
    assert.equal(layered.sources.maxAttempts, undefined, 'unset: the default');
    assert.equal(warning, undefined);
  });

  it('in an untrusted workspace the file\'s commands and sandbox keys are left out, with a warning saying so; its safe keys apply', () => {
    const { settings, warning } = editorRunSettings(folderWith(file), {}, false);
    assert.equal(settings.maxParallel, 4);
    assert.equal(settings.gateCommands, undefined);
    assert.equal(settings.sandboxAllowedHosts, undefined);
    assert.match(warning!, /taskloom\.json sets "gate\.commands", "sandbox\.allowedHosts", .*ignored, as this workspace is not trusted/);
  });

  it('a key the user set themselves is theirs, trusted workspace or not: nothing to warn about', () => {
    const { settings, warning } = editorRunSettings(folderWith({ 'gate.commands': ['npm test'] }), { gateCommands: ['make check'] }, false);
    assert.deepEqual(settings.gateCommands, ['make check']);
    assert.equal(warning, undefined);
  });

  it('a bad file is refused, naming the key', () => {
    assert.throws(() => editorRunSettings(folderWith({ maxParallel: 'two' }), {}, true), (error: unknown) => error instanceof ConfigFileError && /"maxParallel" must be a whole number ≥ 1, got "two"/.test(error.message));
  });
});
