/**
 * What a worker thread loads (pool/worker.ts): the modules of measuring (pool/, media/, metrics/,
 * the clip schema, the option bounds, the temp folders and the count wording), not plan.json's schema module, whose check the pool makes in its own thread
 * (pool/plan-spec.ts), nor any other room. Read from the built files' static imports, which a
 * thread loads when it starts.
 */
import { describe, expect, it } from 'vitest';
import { staticGraph } from '../static-imports.js';

describe('the worker thread\'s modules', () => {
  it('are measuring\'s rooms alone, without plan.json\'s schema', () => {
    const loaded = [...staticGraph('pool/worker.js')];
    expect(loaded).not.toContain('schemas/run-archive.js');
    const rooms = new Set(loaded.map((f) => (f.includes('/') ? f.split('/')[0] : f)));
    // bounds.js: the children's time limits checked at every spawn; temp.js: the input-link folders, swept like the archive's;
    // words.js: the counts in a decoder's failure messages ("1 video frame corrupt"), in agreement with their nouns.
    expect([...rooms].sort()).toEqual(['bounds.js', 'errors.js', 'hash.js', 'media', 'metrics', 'owner.js', 'pool', 'schemas', 'temp.js', 'words.js']);
    expect(loaded.filter((f) => f.startsWith('schemas/'))).toEqual(['schemas/clip.js']);
  });
});
