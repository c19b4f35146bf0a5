/**
 * Browser mode's routes for bulk data: trace files in and out as HTTP streams, so a file of
 * hundreds of megabytes never travels as one WebSocket message (the contract's socket has a
 * 16 MiB frame limit) and is never held whole in memory on either side.
 *
 *   POST /api/trace/import?name=FILE        body: the JSONL trace → JSON {source, events, servers, problems} (opened read-only)
 *   POST /api/recordings/import?name=FILE   body: the JSONL trace → JSON {recording, problems} (added to the library)
 *   GET  /api/trace/export?format=jsonl|har|otlp[&source=live|import-N|rec-ID]   → the file, as an attachment
 *
 * They sit behind host.ts's gate (token, Host, Origin) like everything else, and add two rules
 * of their own: the token never rides in the URL here, and a POST authenticated by the cookie
 * must say where it came from (an Origin of ours; browsers always send one on a POST).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TraceSource } from '../../../contract';
import type { Core } from '../../core/app';
import { CoreError } from '../../core/errors';
import { tooLargeMessage, writeChunks } from '../../core/trace/bulk-io';
import { IMPORT_LIMITS } from '../../core/trace/import-jsonl';
import type { GateVerdict } from './security';

export const BULK_IMPORT_PATH = '/api/trace/import';
export const BULK_EXPORT_PATH = '/api/trace/export';
export const RECORDING_IMPORT_PATH = '/api/recordings/import';

const MAX_NAME = 500;

type ErrorCode = 'invalid-arguments' | 'not-found' | 'too-large' | 'forbidden' | 'unauthorized' | 'method-not-allowed' | 'failed';
const STATUS: Record<ErrorCode, number> = {
  'invalid-arguments': 422,
  'not-found': 404,
  'too-large': 413,
  forbidden: 403,
  unauthorized: 401,
  'method-not-allowed': 405,
  failed: 500,
};

/**
 * Answers a bulk route; false when the request is for something else. Call it only after the
 * gate let the request through.
 */
export async function handleBulkRoute(req: IncomingMessage, res: ServerResponse, core: Core, verdict: Extract<GateVerdict, { ok: true }>): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://placeholder');
  if (url.pathname !== BULK_IMPORT_PATH && url.pathname !== BULK_EXPORT_PATH && url.pathname !== RECORDING_IMPORT_PATH) return false;
  if (verdict.via === 'query') {
    fail(res, 'unauthorized', 'The token is not accepted in the URL of an API route: send the cookie or the x-switchboard-token header.');
    return true;
  }
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    fail(res, 'forbidden', 'Cross-site requests are refused.');
    return true;
  }
  if (url.pathname === BULK_IMPORT_PATH || url.pathname === RECORDING_IMPORT_PATH) {
    if (req.method !== 'POST') {
      fail(res, 'method-not-allowed', `${url.pathname} takes a POST with the trace as its body.`, { allow: 'POST' });
      return true;
    }
    if (verdict.via === 'cookie' && req.headers.origin === undefined) {
      fail(res, 'forbidden', 'A POST authenticated by the cookie must carry an Origin header.');
      return true;
    }
    const into = url.pathname === RECORDING_IMPORT_PATH ? core.traceBulk.importRecording : core.traceBulk.importStream;
    await importRoute(req, res, core, url.searchParams, into);
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    fail(res, 'method-not-allowed', `${BULK_EXPORT_PATH} takes a GET.`, { allow: 'GET, HEAD' });
    return true;
  }
  await exportRoute(req, res, core, url.searchParams);
  return true;
}

type Importer = (name: string, chunks: AsyncIterable<Uint8Array | string>) => Promise<unknown>;

async function importRoute(req: IncomingMessage, res: ServerResponse, core: Core, params: URLSearchParams, into: Importer): Promise<void> {
  const name = (params.get('name') ?? 'trace.jsonl').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_NAME) || 'trace.jsonl';
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > IMPORT_LIMITS.fileBytes) {
    fail(res, 'too-large', tooLargeMessage(name, declared), { connection: 'close' });
    // The body is not wanted: close once the answer is out.
    res.once('finish', () => req.destroy());
    return;
  }
  try {
    // Not destroyed when reading stops early (at the size limit): the answer still has to go out on this socket.
    const result = await into(name, req.iterator({ destroyOnReturn: false }));
    const stoppedEarly = !req.readableEnded;
    sendJson(res, 200, result, stoppedEarly ? { connection: 'close' } : {});
    // Reading stopped at the size limit: the rest of the body is not wanted.
    if (stoppedEarly) res.once('finish', () => req.destroy());
  } catch (error) {
    if (req.destroyed && !req.readableEnded) return; // the client went away; nobody is listening
    fromError(res, error);
  }
}

async function exportRoute(req: IncomingMessage, res: ServerResponse, core: Core, params: URLSearchParams): Promise<void> {
  const format = params.get('format') ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'har' && format !== 'otlp') {
    fail(res, 'invalid-arguments', 'format must be jsonl, har or otlp.');
    return;
  }
  const source = TraceSource.safeParse(params.get('source') ?? undefined);
  if (!source.success) {
    fail(res, 'invalid-arguments', 'source must be "live", "import-N" or "rec-ID" (a recording opened from the library).');
    return;
  }
  let stream;
  try {
    stream = core.traceBulk.exportStream(format, source.data);
  } catch (error) {
    fromError(res, error);
    return;
  }
  res.writeHead(200, {
    'content-type': `${stream.mimeType}; charset=utf-8`,
    'content-disposition': `attachment; filename="${stream.filename}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  try {
    const { closed } = await writeChunks(stream.chunks, res);
    if (!closed) res.end();
  } catch (error) {
    // The headers are gone: break the response so the download fails instead of ending short.
    core.logs.app('error', `Export failed while streaming: ${(error as Error).message}`);
    res.destroy(error as Error);
  }
}

function fromError(res: ServerResponse, error: unknown): void {
  if (error instanceof CoreError) {
    const code: ErrorCode = error.code === 'invalid-arguments' || error.code === 'not-found' ? error.code : 'failed';
    fail(res, code, error.message);
  } else fail(res, 'failed', error instanceof Error ? error.message : String(error));
}

function fail(res: ServerResponse, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, STATUS[code], { error: { code, message } }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}
