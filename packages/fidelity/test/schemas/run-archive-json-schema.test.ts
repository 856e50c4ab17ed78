/**
 * docs/schemas/*.schema.json are generated from the zod schemas of the run archive
 * (scripts/archive-schemas.mjs): they must be current, and describe every field the
 * committed fixture runs use.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runArchiveJsonSchemas } from '../../src/schemas/run-archive-json-schema.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (rel: string) => readFileSync(`${ROOT}${rel}`, 'utf8');

describe('run archive JSON Schemas', () => {
  const schemas = runArchiveJsonSchemas();

  it('docs/schemas holds the current ones (npm run api rewrites them)', () => {
    for (const [file, text] of Object.entries(schemas)) {
      expect(read(`docs/schemas/${file.replace('.json', '.schema.json')}`), file).toBe(text);
    }
  });

  it('name every top-level field of the fixture runs, and require what the format requires', () => {
    type Shape = { properties: Record<string, unknown>; required: string[]; additionalProperties?: unknown };
    for (const file of ['ci.json', 'plan.json', 'run.json'] as const) {
      const whole = JSON.parse(schemas[file]) as Shape & { anyOf?: Shape[] };
      // ci.json is one shape per CI provider; the fixtures are GitHub's, the first.
      const schema = whole.anyOf ? whole.anyOf[0]! : whole;
      const fixture = JSON.parse(read(`fixtures/runs/h200/${file}`)) as Record<string, unknown>;
      for (const key of Object.keys(fixture)) expect(schema.properties, `${file} ${key}`).toHaveProperty(key);
      for (const key of schema.required) expect(fixture, `${file} ${key}`).toHaveProperty(key);
    }
    const ci = JSON.parse(schemas['ci.json']) as { anyOf: { required: string[]; properties: { provider?: { const?: string } } }[] };
    expect(ci.anyOf.map((s) => s.properties.provider?.const)).toEqual(['github', 'gitlab', 'other']);
    for (const shape of ci.anyOf) expect(shape.required).toEqual(expect.arrayContaining(['schema_version', 'job', 'run_id', 'run_attempt', 'head_sha', 'artifact', 'hardware']));
    expect(ci.anyOf[0]!.required).not.toContain('provider');
    expect(ci.anyOf[1]!.required).toEqual(expect.arrayContaining(['provider', 'server_url', 'project_path', 'project_id', 'pipeline_id']));
    expect(ci.anyOf[2]!.required).toEqual(expect.arrayContaining(['provider', 'run_ref']));
    expect(ci.anyOf[2]!.properties).not.toHaveProperty('server_url');
  });
});
