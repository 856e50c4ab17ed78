/**
 * The links back to a CI run (docs/run-archive.md, "ci.json"; docs/ci.md) are built from ci.json
 * fields and nothing else, so those fields are judged as the parts of a URL they become, the same
 * way by verify (a run) and verify-bundle (a bundle's report.json):
 * - a path segment (GitHub `owner` and `name`, each group and the project of GitLab's
 *   `project_path`) is letters, digits, `_`, `.` and `-`, and never `.` or `..`: a URL resolves
 *   those, so `../..` as a repository would point the pages outside the repository, and a GitLab
 *   project path `../../evil.example` outside the server's base path;
 * - the server is a valid server_url (schemas/server-url.ts);
 * - the links are exactly those {@link buildRunLinks} gives for the ids.
 */
import { serverUrlProblem } from './server-url.js';

/** One path segment a run link may hold. */
const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/**
 * Why `value` is not a repository path of `provider`, or null: GitHub `owner/name` (two segments),
 * GitLab `group[/subgroup...]/project` (two or more), each segment a plain name, never `.` or `..`.
 */
export function repositoryPathProblem(provider: 'github' | 'gitlab', value: string): string | null {
  const segments = value.split('/');
  const shape = provider === 'github' ? 'owner/name' : 'group[/subgroup...]/project';
  if (provider === 'github' ? segments.length !== 2 : segments.length < 2) return `expected ${shape}`;
  if (segments.some((s) => !SEGMENT.test(s))) return `expected ${shape}, each part letters, digits, "_", "." and "-"`;
  const dots = segments.find((s) => s === '.' || s === '..');
  if (dots !== undefined) return `has a part "${dots}", which a URL resolves: the run links would leave the ${provider === 'github' ? 'repository' : "server's base path"}`;
  return null;
}

/** The ids a run's links are built from: ci.json's, or the same fields of a report's run. */
export interface RunLinkIds {
  provider: 'github' | 'gitlab';
  server_url: string;
  /** GitHub `owner/name` or GitLab `project_path`. */
  repository: string;
  run_id: number;
  run_attempt: number;
  /** GitHub only. */
  artifact_id?: number | null;
  /** GitLab only. */
  pipeline_id?: number;
}

/** The run links of `ids` (GitHub: run attempt and artifact; GitLab: job, artifacts and pipeline). The parts are not judged here: see {@link runLinkIdsProblem}. */
export function buildRunLinks(ids: RunLinkIds): { run: string; artifact: string; pipeline?: string } {
  const server = ids.server_url.replace(/\/+$/, '');
  if (ids.provider === 'gitlab') {
    const project = `${server}/${ids.repository}/-`;
    return { run: `${project}/jobs/${ids.run_id}`, artifact: `${project}/jobs/${ids.run_id}/artifacts/browse`, pipeline: `${project}/pipelines/${ids.pipeline_id}` };
  }
  const base = `${server}/${ids.repository}/actions/runs/${ids.run_id}`;
  return { run: `${base}/attempts/${ids.run_attempt}`, artifact: `${base}/artifacts/${ids.artifact_id}` };
}

/** Why links cannot be built from `ids`, or null: the server_url and the repository path by the rules above. */
export function runLinkIdsProblem(ids: RunLinkIds): string | null {
  const server = serverUrlProblem(ids.server_url);
  if (server !== null) return `server_url ${server}`;
  const repo = repositoryPathProblem(ids.provider, ids.repository);
  if (repo !== null) return `${ids.provider === 'github' ? 'repository' : 'project path'} ${JSON.stringify(ids.repository)} ${repo}`;
  return null;
}
