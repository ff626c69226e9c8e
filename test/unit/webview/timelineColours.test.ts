import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PHASE_LOOK, type TimelinePhase } from '../../../src/webview/runView/timelineLayout';

// The timeline's phase colours, as runView.css sets them, seen with normal vision and with each
// kind of colour blindness (Machado, Oliveira & Fernandes 2009, full severity, in linear RGB).
const css = readFileSync(join(__dirname, '..', '..', '..', 'media', 'runView.css'), 'utf8');

const VISION: Record<string, number[][]> = {
  normal: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
};

/** CIE76 colour difference: about 2 is just noticeable; bars side by side need far more. */
const MIN_DIFFERENCE = 15;

function phaseColours(): Map<TimelinePhase, string> {
  const colours = new Map<TimelinePhase, string>();
  for (const [, phase, hex] of css.matchAll(/\.phase-([\w-]+) \{ --tone: #([0-9a-f]{6}); \}/g)) colours.set(phase as TimelinePhase, hex!);
  return colours;
}

const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

function seenAs(hex: string, vision: number[][]): [number, number, number] {
  const rgb = [0, 2, 4].map((i) => linear(parseInt(hex.slice(i, i + 2), 16) / 255));
  const [r, g, b] = vision.map((row) => Math.min(1, Math.max(0, row.reduce((sum, k, i) => sum + k * rgb[i]!, 0))));
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((0.4124 * r! + 0.3576 * g! + 0.1805 * b!) / 0.95047);
  const y = f(0.2126 * r! + 0.7152 * g! + 0.0722 * b!);
  const z = f((0.0193 * r! + 0.1192 * g! + 0.9505 * b!) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

const difference = (a: string, b: string, vision: number[][]) => Math.hypot(...seenAs(a, vision).map((v, i) => v - seenAs(b, vision)[i]!));

describe('timeline colours', () => {
  it('every coloured phase stays apart from every other, for colour-blind eyes too', () => {
    const colours = phaseColours();
    assert.ok(colours.size >= 7, `the phases' colours are read from runView.css (${[...colours.keys()].join(', ')})`);
    const tooClose: string[] = [];
    for (const [a, colourA] of colours) {
      for (const [b, colourB] of colours) {
        if (a >= b || colourA === colourB) continue;
        for (const [name, vision] of Object.entries(VISION)) {
          const d = difference(colourA, colourB, vision);
          if (d < MIN_DIFFERENCE) tooClose.push(`${a}/${b} with ${name}: ${d.toFixed(1)}`);
        }
      }
    }
    assert.deepEqual(tooClose, []);
  });

  it('gate and gate failed differ in colour and in pattern', () => {
    const colours = phaseColours();
    for (const vision of Object.values(VISION)) assert.ok(difference(colours.get('gate')!, colours.get('rework')!, vision) >= 2 * MIN_DIFFERENCE);
    assert.equal(PHASE_LOOK.gate.hatched, false);
    assert.equal(PHASE_LOOK.rework.hatched, true);
  });

  it('phases sharing a colour are told apart another way: hatching, or a faded bar', () => {
    const colours = phaseColours();
    const faded = new Set([...css.matchAll(/\.span\.phase-([\w-]+)[,\s]/g)].map(([, phase]) => phase));
    for (const [a, colourA] of colours) {
      for (const [b, colourB] of colours) {
        if (a >= b || colourA !== colourB) continue;
        const apart = PHASE_LOOK[a].hatched !== PHASE_LOOK[b].hatched || faded.has(a) !== faded.has(b);
        assert.ok(apart, `${a} and ${b} share #${colourA} and nothing else sets them apart`);
      }
    }
  });
});
