#!/usr/bin/env node
// Writes docs/schemas/{ci,plan,run,calibration}.schema.json from the built library (runArchiveJsonSchemas), so
// the JSON Schemas of the run archive files come from the same zod schemas verifyRun uses.
// Build first (`npm run build`); packages/fidelity/test/schemas/run-archive-json-schema.test.ts
// fails when the committed files are not current.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { runArchiveJsonSchemas, calibrationJsonSchema } = await import(path.join(root, 'packages', 'fidelity', 'dist', 'index.js'));
const dir = path.join(root, 'docs', 'schemas');
mkdirSync(dir, { recursive: true });
for (const [file, text] of Object.entries(runArchiveJsonSchemas())) {
  writeFileSync(path.join(dir, file.replace(/\.json$/, '.schema.json')), text);
}
// calibration.json (fidelity calibrate, docs/calibration.md): the same way, from its zod schema.
writeFileSync(path.join(dir, 'calibration.schema.json'), calibrationJsonSchema());
process.stderr.write(`wrote ${path.relative(root, dir)}\n`);
