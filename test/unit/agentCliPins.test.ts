import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

// The scripted agent servers imitate these CLIs and the contract fixtures were recorded from
// them: a caret range would let `npm install` move to a version nobody checked them against.
const AGENT_CLIS = ['@anthropic-ai/claude-code', '@openai/codex'];
const EXACT_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

const root = join(__dirname, '..', '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8')) as Record<string, unknown>;

describe('agent CLI dev dependencies are pinned', () => {
  const manifest = readJson('package.json') as { devDependencies: Record<string, string> };
  const lock = readJson('package-lock.json') as { packages: Record<string, { devDependencies?: Record<string, string>; version?: string }> };

  for (const name of AGENT_CLIS) {
    it(`${name} is an exact version, the same in package.json and package-lock.json`, () => {
      const wanted = manifest.devDependencies[name];
      assert.match(wanted ?? '', EXACT_VERSION, `package.json pins ${name} to "${wanted}", not an exact version`);
      assert.equal(lock.packages['']?.devDependencies?.[name], wanted, 'package-lock.json root entry disagrees');
      assert.equal(lock.packages[`node_modules/${name}`]?.version, wanted, 'package-lock.json resolves another version');
    });
  }
});
