/**
 * File errors worded as Go's `*fs.PathError` (`open /x: no such file or directory`), as kubectl
 * prints them, instead of Node's codes (`ENOENT`).
 */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
};

/** `open PATH: REASON` (`read PATH: is a directory` for a directory, as Go reports it). */
export function pathError(path: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const reason = REASONS[code] ?? (e as Error).message.split('\n')[0];
  return `${code === 'EISDIR' ? 'read' : 'open'} ${path}: ${reason}`;
}
