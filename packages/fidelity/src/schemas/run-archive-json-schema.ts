/**
 * JSON Schemas of the run archive's JSON files, made from the zod schemas
 * (the single source), for CI authors who validate ci.json / plan.json /
 * run.json before uploading. They cover shape only; the cross-file rules
 * (docs/run-archive.md) are verifyRun's.
 */
import { z } from 'zod';
import { CiJson, PlanJson, RunJson } from './run-archive.js';

/**
 * The JSON Schema (draft 2020-12) of each JSON file of a run archive, by file name, as text.
 * docs/schemas/ holds the same files.
 *
 * @example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * for (const [file, text] of Object.entries(runArchiveJsonSchemas())) writeFileSync(file.replace('.json', '.schema.json'), text);
 * ```
 */
export function runArchiveJsonSchemas(): Record<'ci.json' | 'plan.json' | 'run.json', string> {
  const text = (schema: z.ZodType, title: string) => `${JSON.stringify({ title, ...z.toJSONSchema(schema) }, null, 2)}\n`;
  return {
    // One shape per CI provider (anyOf): GitHub (version 1, or 2 without provider or with "github"), GitLab and other (version 2).
    'ci.json': text(CiJson, 'ci.json of a fidelity run archive (version 1 or 2; one shape per CI provider)'),
    'plan.json': text(PlanJson, 'plan.json of a fidelity run archive (version 1)'),
    'run.json': text(RunJson, 'run.json of a fidelity run archive (version 1)'),
  };
}
