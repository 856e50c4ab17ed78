/**
 * `fidelity power RUN` and the report agree: the committed B200 run (two clips off the plan:
 * c007 fewer frames, c008 no audio) has the valid clips, energy per valid clip and basis that the
 * reference report (compare of the fixtures) gives it, and names the invalid clips with their first code.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { capture } from './capture.js';
import { main } from '../src/main.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const B200 = path.join(ROOT, 'fixtures', 'runs', 'b200');

interface PowerDoc {
  power: { valid_clips: number; joules_per_valid_clip?: number; valid_clips_basis: string; total_gpu_energy_j: number };
  accounting: { valid_clips: number; participating: { energy_j_per_valid_clip: number | null } };
  clips: { analysed: number; valid: number; invalid_by_code: Record<string, number>; invalid: { slot_id: string; code: string }[] };
}

describe('fidelity power and report.json count the same valid clips', () => {
  it('the B200 fixture run: power --json against the reference report', async () => {
    const report = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'reference', 'report.json'), 'utf8')) as { runs: { hardware: { gpu_model: string }; power: PowerDoc['power']; accounting: PowerDoc['accounting']; clips: PowerDoc['clips'] }[] };
    const run = report.runs.find((r) => r.hardware.gpu_model === 'B200')!;
    const io = capture();
    expect(await main(['power', B200, '--json'], io)).toBe(0);
    const doc = JSON.parse(io.stdout()) as PowerDoc;
    expect(doc.power.valid_clips).toBe(run.power.valid_clips);
    expect(doc.power.valid_clips_basis).toBe(run.power.valid_clips_basis);
    expect(doc.power.valid_clips_basis).toBe('valid_clips');
    expect(doc.power.joules_per_valid_clip).toBe(run.power.joules_per_valid_clip);
    expect(doc.accounting.valid_clips).toBe(run.accounting.valid_clips);
    expect(doc.accounting.participating.energy_j_per_valid_clip).toBe(run.accounting.participating.energy_j_per_valid_clip);
    expect(doc.clips).toEqual(run.clips);
    const text = capture();
    expect(await main(['power', B200], text)).toBe(0);
    expect(text.stdout()).toContain(`valid clips: ${run.clips.valid} of ${run.clips.analysed} completed clips judged valid`);
    expect(text.stdout()).toContain('invalid measurement-r000-c007: MEDIA_PLAN_MISMATCH');
    expect(text.stdout()).toContain('invalid measurement-r000-c008: MEDIA_PLAN_MISMATCH');
    expect(text.stdout()).toContain(`per valid clip: ${run.power.joules_per_valid_clip!.toFixed(1)} J (${run.power.valid_clips} valid clips)`);
  }, 180_000);
});
