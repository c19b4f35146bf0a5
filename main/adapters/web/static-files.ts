/** Serves the built renderer from one directory, never outside it. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname } from 'node:path';
import { resolveInside } from '../../core/util/safe-path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export function contentType(file: string): string {
  return TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

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
