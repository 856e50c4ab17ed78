/**
 * ci.json server_url is judged at verify time: anything verify accepts must
 * give pages that verify-bundle accepts and links that work.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import { serverUrlProblem } from '../../src/schemas/server-url.js';
import { render, rm, tempRoot, validDraft, writeDir } from './fixture.js';

let root: string;
let n = 0;
beforeAll(async () => {
  root = await tempRoot('server-url');
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function verifyWith(serverUrl: string) {
  const draft = validDraft();
  draft.ci.server_url = serverUrl;
  return verifyRun(await writeDir(render(draft), path.join(root, `run-${n++}`)));
}

describe('ci.json server_url', () => {
  it.each([
    ['plain http', 'http://github.com'],
    ['credentials', 'https://user:pass@github.example.com'],
    ['a user alone', 'https://token@github.example.com'],
    ['a query', 'https://github.com?x=1'],
    ['a fragment', 'https://github.com/#top'],
    ['an empty query', 'https://github.com/?'],
    ['a backslash', 'https://github.com\\evil.example'],
    ['whitespace', 'https://github.com /x'],
    ['no host', 'https:///path'],
    ['a port out of range', 'https://github.com:99999'],
    ['port 0', 'https://github.com:0'],
    ['port 00', 'https://github.com:00/'],
    ['a colon with no port', 'https://github.com:'],
    ['a ".." path segment', 'https://gitlab.example.com/a/../b'],
    ['a "." path segment', 'https://gitlab.example.com/./gitlab'],
    ['a percent-encoded ".." segment', 'https://gitlab.example.com/gitlab/%2e%2E'],
    ['another scheme', 'ftp://github.com'],
    ['not a URL', 'github.com'],
  ])('refuses %s with CI_SERVER_URL', async (_name, value) => {
    const result = await verifyWith(value);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.map((p) => [p.code, p.where?.path]), JSON.stringify(problems)).toEqual([['CI_SERVER_URL', '$.server_url']]);
  });

  it.each(['https://github.com', 'https://github.com/', 'https://ghe.example.com:8443', 'https://ghe.example.com/ci/', 'https://[::1]:8443'])('accepts %s', async (value) => {
    expect(serverUrlProblem(value)).toBeNull();
    const result = await verifyWith(value);
    expect(result.ok ? [] : result.problems).toEqual([]);
  });
});
