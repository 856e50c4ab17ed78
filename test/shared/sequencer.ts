/**
 * The order files start in (vitest.config.ts `sequence.sequencer`): vitest's own order (files that
 * failed or took longest last time first, otherwise the largest first), with the `serial` project's
 * files spread evenly through the `parallel` project's, each ahead of an equal share of them. A serial
 * file waits for the one before it to finish (test/shared/one-at-a-time.ts); spread out, the next
 * one is rarely reached before the last has ended, so neither worker waits for long.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class SpreadSerial extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const serial = sorted.filter((f) => f.project.name === 'serial');
    const rest = sorted.filter((f) => f.project.name !== 'serial');
    if (serial.length === 0) return sorted;
    const out: TestSpecification[] = [];
    let next = 0;
    rest.forEach((file, i) => {
      // Serial file k goes before the parallel file at k/serial.length of the way through.
      while (next < serial.length && i >= Math.floor((next * rest.length) / serial.length)) out.push(serial[next++]!);
      out.push(file);
    });
    out.push(...serial.slice(next));
    return out;
  }
}
