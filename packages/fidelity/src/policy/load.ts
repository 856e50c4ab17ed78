/**
 * Reads a policy file (`--policy`). Every problem is collected and named by
 * its JSON path, so one run of the command tells the user everything to fix.
 */
import { FidelityError, type Problem } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { SIDE_FILE_LIMITS } from '../side-file.js';
import { Policy } from '../schemas/policy.js';
import { CHECKS } from './checks.js';

function fail(problems: Problem[]): never {
  const first = problems[0]?.message ?? 'invalid policy';
  throw new FidelityError('POLICY_INVALID', problems.length === 1 ? first : `${first} (and ${problems.length - 1} more problems)`, { problems });
}

function jsonPath(path: readonly PropertyKey[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`)).join('') || '(root)';
}

/** Validates an already parsed value; `label` names the file in messages. */
export function parsePolicy(value: unknown, label = 'policy'): Policy {
  const parsed = Policy.safeParse(value);
  if (!parsed.success) {
    fail(
      parsed.error.issues.map((issue) => {
        const where = jsonPath(issue.path);
        return { code: 'POLICY_INVALID', message: `${label}: ${where}: ${issue.message}`, where: { file: label, path: where } };
      }),
    );
  }
  const policy = parsed.data;
  const problems: Problem[] = [];
  const seen = new Set<string>();
  policy.checks.forEach((check, i) => {
    if (seen.has(check.name)) {
      problems.push({ code: 'POLICY_INVALID', message: `${label}: checks[${i}].name: "${check.name}" appears more than once`, where: { file: label, path: `checks[${i}].name` } });
    }
    seen.add(check.name);
    if (!CHECKS[check.name].figures.test(check.metric)) {
      problems.push({
        code: 'POLICY_INVALID',
        message: `${label}: checks[${i}].metric: Expected a figure matching ${CHECKS[check.name].figures.source} for check ${check.name} but received ${JSON.stringify(check.metric)}`,
        where: { file: label, path: `checks[${i}].metric` },
      });
    }
    if (!Number.isFinite(check.threshold)) {
      problems.push({ code: 'POLICY_INVALID', message: `${label}: checks[${i}].threshold must be a finite number`, where: { file: label, path: `checks[${i}].threshold` } });
    }
  });
  if (problems.length) fail(problems);
  return policy;
}

/**
 * Reads and checks a policy file (the shape of `report.json`'s `policy`).
 *
 * @throws FidelityError `POLICY_INVALID` when the file is unreadable, not JSON, or does not match the schema.
 */
export async function loadPolicy(file: string): Promise<Policy> {
  const { value, label } = await readJsonFile(file, 'POLICY_INVALID', 'policy file', SIDE_FILE_LIMITS.policy);
  return parsePolicy(value, label);
}
