/** Path-traversal guard shared by every place that maps a URL to a file (browser mode, app:// protocol). */
import { resolve, sep } from 'node:path';

/** The file a URL path names inside `root`, or undefined when it would escape it. */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const base = resolve(root);
  const file = resolve(base, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`);
  return file === base || file.startsWith(base + sep) ? file : undefined;
}
