/** Serves the built renderer from one directory, never outside it. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { resolveInside } from '../../core/util/safe-path';
import { contentType } from '../shared/content-type';



export async function serveFile(root: string, urlPath: string, res: ServerResponse, headers: Record<string, string>): Promise<boolean> {
  const path = urlPath === '/' ? '/index.html' : urlPath;
  const file = resolveInside(root, path);
  if (!file) return false;
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return false;
  res.writeHead(200, { ...headers, 'content-type': contentType(file), 'content-length': String(info.size) });
  createReadStream(file).pipe(res);
  return true;
}
