/** Where a file that could not be read (or not wholly) is kept: beside it, named by the time. */
export function backupPath(path: string): string {
  return `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
}
