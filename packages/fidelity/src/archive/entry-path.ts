/**
 * One judgement of "is this a plain relative path", shared by archive entry
 * names, SHA256SUMS lines and run.json media paths, so that the three can
 * never disagree about what is safe.
 */

export type PathFault = 'absolute' | 'traversal' | 'not-canonical';

export function pathFault(p: string): PathFault | null {
  if (p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) return 'absolute';
  // Backslash counts as a separator here: a Windows extractor would treat `..\x` as a climb.
  if (p.split(/[\\/]/).includes('..')) return 'traversal';
  if (p === '' || p.includes('\\') || /[\u0000-\u001f\u007f]/.test(p)) return 'not-canonical';
  if (p.split('/').some((segment) => segment === '' || segment === '.')) return 'not-canonical';
  return null;
}

export function describeFault(fault: PathFault): string {
  switch (fault) {
    case 'absolute':
      return 'is an absolute path';
    case 'traversal':
      return 'climbs out with ".."';
    case 'not-canonical':
      return 'is not a plain relative path (empty or "." segments, backslashes or control characters)';
  }
}
