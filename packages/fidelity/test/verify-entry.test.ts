/**
 * `media-fidelity/verify` (src/verify.ts), the entry `fidelity verify` loads: the index's own names
 * (the same declarations), and only the rooms verifying a run and probing its media use.
 */
import { describe, expect, it } from 'vitest';
import * as index from '../src/index.js';
import * as entry from '../src/verify.js';
import { staticGraph } from './static-imports.js';

describe('media-fidelity/verify', () => {
  it('offers the index\'s own values', () => {
    for (const [name, value] of Object.entries(entry)) expect(index[name as keyof typeof index], name).toBe(value);
  });

  it('loads the archive, its schemas and the probe, not measuring, the pages, the bundle or the synthetic runs', () => {
    // pool/threads.js alone (the core count that bounds the probes at once), none of measuring's modules.
    const loaded = [...staticGraph('verify.js')].filter((f) => f !== 'pool/threads.js');
    const rooms = new Set(loaded.filter((f) => f.includes('/')).map((f) => f.split('/')[0]));
    for (const room of ['pool', 'metrics', 'pages', 'bundle', 'synth', 'comparison', 'calibrate', 'shard', 'power']) expect(rooms.has(room), room).toBe(false);
    expect(rooms.has('archive')).toBe(true);
    expect(rooms.has('media')).toBe(true);
  });
});
