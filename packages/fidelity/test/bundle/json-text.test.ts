import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/bundle/json-text.js';
import { reportJsonText } from '../../src/bundle/write.js';
import { sampleReport } from '../pages/html-fixture.js';

const report = (): ReturnType<typeof sampleReport> =>
  sampleReport({ width: 64, height: 48, frames: 30, audio: { sampleRate: 8000, channels: 2, samples: 8000 }, baselineMedia: 'media/a.mp4', candidateMedia: 'media/b.mp4' });

describe('jsonText', () => {
  it('gives back the value under JSON.parse, for a whole report', () => {
    const r = report();
    const text = reportJsonText(r);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(r)));
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('writes each per-frame series on one line and indents every object', () => {
    const r = report();
    const text = reportJsonText(r);
    const perFrame = r.comparisons[0]!.pairs[1]!.video!.ssim!.per_frame;
    expect(perFrame.length).toBe(30);
    expect(text).toContain(`"per_frame": [${perFrame.map((v) => JSON.stringify(v)).join(',')}]`);
    // One line per key of an object, two spaces per level, as JSON.stringify(value, null, 2) indents them.
    expect(text.startsWith('{\n  "schema_version": 1,\n')).toBe(true);
    // No line holds a lone array element that is a number, null or string (JSON.stringify(…, 2) writes hundreds).
    const lone = /^\s*(-?\d[\d.eE+-]*|null|"[^"]*"),?$/;
    expect(JSON.stringify(r, null, 2).split('\n').filter((l) => lone.test(l)).length).toBeGreaterThan(100);
    expect(text.split('\n').filter((l) => lone.test(l))).toEqual([]);
  });

  it('indents arrays that hold an object or an array, and writes empty ones as JSON.stringify does', () => {
    const value = { a: [1, 'x', null, true], b: [{ c: 1 }, 2], d: [[1, 2], [3]], e: [], f: {}, g: 'q"u,o\nte' };
    expect(jsonText(value)).toBe(
      [
        '{',
        '  "a": [1,"x",null,true],',
        '  "b": [',
        '    {',
        '      "c": 1',
        '    },',
        '    2',
        '  ],',
        '  "d": [',
        '    [1,2],',
        '    [3]',
        '  ],',
        '  "e": [],',
        '  "f": {},',
        '  "g": "q\\"u,o\\nte"',
        '}',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(jsonText(value))).toEqual(value);
  });

  it('follows JSON.stringify for undefined, non-finite numbers, toJSON and key order', () => {
    const value = { z: 1, a: undefined, n: [NaN, Infinity, -0, 1e-7, 0.1 + 0.2], when: new Date(0), s: [undefined] };
    const text = jsonText(value);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(text).toContain('"n": [null,null,0,1e-7,0.30000000000000004]');
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['z', 'n', 'when', 's']);
    expect(jsonText(3)).toBe('3\n');
    expect(() => jsonText(undefined)).toThrow(TypeError);
  });

  it('is deterministic: the same value, or a copy of it, gives the same bytes', () => {
    const one = reportJsonText(report());
    expect(reportJsonText(report())).toBe(one);
    expect(reportJsonText(JSON.parse(one))).toBe(one);
    expect(jsonText(JSON.parse(one))).toBe(one);
  });
});
