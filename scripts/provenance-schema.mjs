// Writes docs/provenance.schema.json from the zod schema (packages/fidelity/src/provider/schema.ts).
// Run after a build: node scripts/provenance-schema.mjs. A test fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { provenanceJsonSchema } from 'media-fidelity';

writeFileSync(new URL('../docs/provenance.schema.json', import.meta.url), `${JSON.stringify(provenanceJsonSchema(), null, 2)}\n`);
