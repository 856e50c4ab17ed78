import { describe, expect, it } from 'vitest';
import { allowedOrigins, judgeLink } from '../../src/bundle-check/links.js';

const origins = allowedOrigins(['https://github.com', 'http://insecure.example', 'not a url']);

describe('judgeLink', () => {
  it('resolves relative links inside the bundle, dropping query and fragment and decoding %XX', () => {
    expect(judgeLink('media/a.mp4#t=1', 'index.html', origins)).toEqual({ kind: 'file', path: 'media/a.mp4' });
    expect(judgeLink('../../report.json?x', 'pairs/1/index.html', origins)).toEqual({ kind: 'file', path: 'report.json' });
    expect(judgeLink('a%20b.png', 'index.html', origins)).toEqual({ kind: 'file', path: 'a b.png' });
  });

  it('ignores fragment-only and empty links', () => {
    expect(judgeLink('#pair-3', 'index.html', origins).kind).toBe('fragment');
    expect(judgeLink('', 'index.html', origins).kind).toBe('fragment');
  });

  it('refuses links that leave the bundle or cannot resolve from file://', () => {
    expect(judgeLink('../outside.html', 'index.html', origins).kind).toBe('broken');
    expect(judgeLink('/etc/passwd', 'index.html', origins).kind).toBe('broken');
    expect(judgeLink('%E0%A4%A', 'index.html', origins).kind).toBe('broken');
    expect(judgeLink('//cdn.example/x.js', 'index.html', origins).kind).toBe('refused');
  });

  it('allows https only to the declared servers, and inline images', () => {
    expect(judgeLink('https://github.com/o/r/actions/runs/1', 'index.html', origins).kind).toBe('external');
    expect(judgeLink('https://evil.example/x', 'index.html', origins).kind).toBe('refused');
    expect(judgeLink('http://github.com/o/r', 'index.html', origins).kind).toBe('refused');
    expect(judgeLink('http://insecure.example/x', 'index.html', origins).kind).toBe('refused');
    expect(judgeLink('javascript:alert(1)', 'index.html', origins).kind).toBe('refused');
    expect(judgeLink('JavaScript:alert(1)', 'index.html', origins).kind).toBe('refused');
    expect(judgeLink('file:///etc/passwd', 'index.html', origins).kind).toBe('refused');
    expect(judgeLink('data:image/png;base64,AAAA', 'index.html', origins).kind).toBe('inline');
    expect(judgeLink('data:text/html,<script>', 'index.html', origins).kind).toBe('refused');
  });
});
