/**
 * The doctor for an HTTP server: config, DNS, TCP, TLS, the first POST by hand (each redirect a
 * hop), its content type, CORS, the OAuth metadata the server points to, then the protocol steps
 * through the app's own client (protocol.ts).
 */
import type { ServerTarget } from '../../../contract';
import type { Redactor } from '../trace/redact';
import { type Address, bodyMessage, endpointEvent, rawRequest, resolveAll, tcpConnect, tlsHandshake, type RawResponse } from './net';
import { oauthSteps } from './oauth';
import { protocolSteps } from './protocol';
import { cut, errorMessageOf, type StepOutcome, type StepRunner } from './steps';

type HttpTarget = Extract<ServerTarget, { type: 'http' }>;

export interface HttpDoctorOptions {
  stepTimeoutMs: number;
  protocolTimeoutMs: number;
}

export const HTTP_STEP_COUNT = 14;
const LISTEN_TITLE = 'GET stream (server messages)';

const MAX_HOPS = 5;
const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 'switchboard-doctor-1',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'switchboard-doctor', version: '0.1.0' } },
});

const DAY_MS = 86_400_000;

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

export async function httpSteps(runner: StepRunner, target: HttpTarget, redactor: Redactor, options: HttpDoctorOptions): Promise<void> {
  const t = options.stepTimeoutMs;
  // ---- config
  let url: URL | undefined;
  await runner.run('config', 'URL and configuration', t, async () => {
    try {
      url = new URL(target.url);
    } catch {
      return { verdict: 'failed', detail: `"${cut(target.url, 200)}" is not a URL.`, hint: 'Give a full URL such as http://127.0.0.1:3000/mcp.' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { verdict: 'failed', detail: `The URL's scheme is ${url.protocol}, not http: or https:.`, hint: 'An MCP server over HTTP has an http:// or https:// URL; a command line is a stdio server.' };
    if (url.username || url.password) return { verdict: 'failed', detail: 'The URL carries a user:password part.', hint: 'Put credentials in a header (Authorization) instead.' };
    const facts = [
      { label: 'host', value: url.hostname },
      { label: 'port', value: String(portOf(url)) },
      { label: 'path', value: url.pathname },
      { label: 'transport', value: target.transport },
      { label: 'headers', value: Object.keys(target.headers).join(', ') || 'none' },
    ];
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) return { verdict: 'warning', detail: `Plain http:// to ${url.hostname}, which is not this machine: requests and tokens travel unencrypted.`, hint: 'Use https:// for a remote server.', facts };
    return { verdict: 'ok', detail: `${url.protocol === 'https:' ? 'https' : 'http'} to ${url.hostname}:${portOf(url)}${url.pathname}.`, facts };
  });
  const rest = ['dns', 'tcp', 'tls', 'http', 'content-type', 'cors', 'prm', 'asm', 'registration'] as const;
  const titles: Record<(typeof rest)[number], string> = {
    dns: 'DNS lookup',
    tcp: 'TCP connect',
    tls: 'TLS handshake',
    http: 'HTTP reachability and redirects',
    'content-type': 'Content type of the answer',
    cors: 'CORS (browser clients)',
    prm: 'Protected resource metadata (RFC 9728)',
    asm: 'Authorization server metadata (RFC 8414 / OIDC)',
    registration: 'Client registration options',
  };
  const skipFrom = async (from: (typeof rest)[number], why: string) => {
    for (const id of rest.slice(rest.indexOf(from))) runner.skip(id, titles[id], why);
    await protocolSteps(runner, target, redactor, options.protocolTimeoutMs, why);
    runner.skip('listen', LISTEN_TITLE, why);
  };
  if (!url) return skipFrom('dns', 'The URL is not usable.');
  const endpoint = url;

  // ---- DNS
  let addresses: Address[] = [];
  await runner.run('dns', titles.dns, t, async () => {
    try {
      addresses = await resolveAll(endpoint.hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND') return { verdict: 'failed', detail: `No such host: "${endpoint.hostname}" does not resolve (ENOTFOUND).`, hint: 'Check the host name for a typo; a name under a private domain may need a VPN or the right DNS server.' };
      return { verdict: 'failed', detail: `The lookup of "${endpoint.hostname}" failed: ${errorMessageOf(error)}.`, hint: code === 'EAI_AGAIN' ? 'The DNS server did not answer: check the network.' : undefined };
    }
    const list = addresses.map((a) => a.address);
    return { verdict: 'ok', detail: `${endpoint.hostname} → ${list.slice(0, 8).join(', ')}${list.length > 8 ? ` and ${list.length - 8} more` : ''}.`, facts: addresses.slice(0, 20).map((a) => ({ label: `IPv${a.family}`, value: a.address })) };
  });
  if (addresses.length === 0) return skipFrom('tcp', 'The host name does not resolve.');

  // ---- TCP: every address until one connects (what a client's happy eyeballs would find)
  const port = portOf(endpoint);
  let reached: Address | undefined;
  await runner.run('tcp', titles.tcp, t, async (signal) => {
    const tried: { label: string; value: string }[] = [];
    for (const address of addresses.slice(0, 4)) {
      try {
        const { local } = await tcpConnect(address, port, signal);
        reached = address;
        tried.push({ label: address.address, value: `connected (from ${local})` });
        break;
      } catch (error) {
        tried.push({ label: address.address, value: errorMessageOf(error) });
        if (signal.aborted) throw error;
      }
    }
    if (reached) return { verdict: 'ok', detail: `Connected to ${reached.address} port ${port}.`, facts: tried };
    const refused = tried.every((f) => f.value.includes('ECONNREFUSED'));
    return refused
      ? { verdict: 'failed', detail: `Connection refused at ${endpoint.hostname} port ${port}: nothing is listening there.`, hint: 'Start the server, or check the port in the URL.', facts: tried }
      : { verdict: 'failed', detail: `Could not connect to ${endpoint.hostname} port ${port}.`, hint: 'A firewall or a wrong address: check that the server listens on that interface.', facts: tried };
  });
  if (!reached) return skipFrom('tls', 'Nothing accepts a connection at that address.');

  // ---- TLS
  let tlsBroken = false;
  if (endpoint.protocol !== 'https:') runner.skip('tls', titles.tls, 'Plain http: no TLS.');
  else {
    const address = reached;
    await runner.run('tls', titles.tls, t, async (signal) => {
      const facts = await tlsHandshake(address, port, endpoint.hostname, signal);
      const leaf = facts.chain[0];
      const list = [
        ...facts.chain.map((c, i) => ({ label: i === 0 ? 'certificate' : `issuer ${i}`, value: `${c.subject} (issued by ${c.issuer}; valid ${c.validFrom} – ${c.validTo})${c.selfSigned ? ', self-signed' : ''}` })),
        ...(facts.protocol ? [{ label: 'protocol', value: facts.protocol }] : []),
      ];
      const now = Date.now();
      // Every problem is said; the first decides the hint.
      const problems: { detail: string; hint: string }[] = [];
      if (facts.validTo && facts.validTo.getTime() < now) problems.push({ detail: `The server's certificate expired on ${facts.validTo.toISOString().slice(0, 10)} (CERT_HAS_EXPIRED).`, hint: 'Renew the certificate on the server; until then no client will trust it.' });
      if (facts.validFrom && facts.validFrom.getTime() > now) problems.push({ detail: `The server's certificate is not valid before ${facts.validFrom.toISOString()}.`, hint: "Check the server's (or this machine's) clock." });
      const code = facts.authorizationError;
      if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN') problems.push({ detail: `The certificate is self-signed (${code}): no trusted authority vouches for it.`, hint: 'Use a certificate from a public CA, or trust this one on this machine (NODE_EXTRA_CA_CERTS=/path/to/ca.pem).' });
      else if (code && code !== 'CERT_HAS_EXPIRED' && code !== 'CERT_NOT_YET_VALID')
        problems.push({ detail: `The certificate chain is not trusted (${code}).`, hint: code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' ? 'The server may not send its intermediate certificates: configure the full chain.' : 'Fix the certificate chain on the server.' });
      if (facts.hostnameError) problems.push({ detail: `The certificate does not name ${endpoint.hostname}: ${facts.hostnameError}`, hint: 'Use the host name the certificate was issued for, or reissue it with this name.' });
      if (problems.length > 0) {
        tlsBroken = true;
        return { verdict: 'failed', detail: problems.map((p) => p.detail).join(' '), hint: problems[0]!.hint, facts: list };
      }
      if (facts.validTo && facts.validTo.getTime() - now < 14 * DAY_MS) return { verdict: 'warning', detail: `Trusted, but the certificate expires on ${facts.validTo.toISOString().slice(0, 10)}.`, hint: 'Renew it soon.', facts: list };
      return { verdict: 'ok', detail: `Trusted certificate for ${endpoint.hostname}${leaf ? ` (${leaf.subject}, valid until ${facts.validTo?.toISOString().slice(0, 10)})` : ''}.`, facts: list };
    });
  }
  if (tlsBroken) return skipFrom('http', 'The TLS certificate is not trusted: the app refuses the connection.');

  // ---- HTTP: the first POST, each redirect a hop
  const baseHeaders: Record<string, string> = { ...lowerKeys(target.headers), accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  let answer: RawResponse | undefined;
  let finalUrl = endpoint;
  let httpFailed = false;
  /** The endpoint is a legacy HTTP+SSE stream (the 2024-11-05 transport): a GET, not a POST, starts it. */
  let legacySse = target.transport === 'sse';
  const sseGet = (url: URL, headers: Record<string, string>, signal: AbortSignal) =>
    rawRequest(url, { method: 'GET', headers: { ...withoutBody(headers), accept: 'text/event-stream' }, enough: (text) => endpointEvent(text) !== undefined }, signal);
  await runner.run('http', titles.http, t, async (signal) => {
    const hops: { label: string; value: string }[] = [];
    let current = endpoint;
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const headers = current.origin === endpoint.origin ? baseHeaders : withoutCredentials(baseHeaders);
      let response = legacySse ? await sseGet(current, headers, signal) : await rawRequest(current, { method: 'POST', headers, body: INITIALIZE_BODY }, signal);
      hops.push({ label: `${legacySse ? 'GET' : 'POST'} ${redactor.url(current.href)}`, value: `${response.status} ${response.statusText}${response.headers.location ? ` → ${redactor.url(String(response.headers.location))}` : ''}` });
      // transport auto: a POST refused with a 4xx may be a legacy HTTP+SSE endpoint, as the app then tries.
      if (!legacySse && target.transport === 'auto' && [400, 404, 405].includes(response.status)) {
        const stream = await sseGet(current, headers, signal).catch(() => undefined);
        if (stream && stream.status === 200 && String(stream.headers['content-type'] ?? '').includes('text/event-stream')) {
          legacySse = true;
          hops.push({ label: `GET ${redactor.url(current.href)}`, value: `${stream.status} ${stream.statusText} (a legacy HTTP+SSE stream)` });
          response = stream;
        }
      }
      if (response.status >= 300 && response.status < 400 && response.headers.location) {
        const next = new URL(String(response.headers.location), current);
        if (hop === MAX_HOPS) {
          httpFailed = true;
          return { verdict: 'failed', detail: `More than ${MAX_HOPS} redirects.`, hint: 'A redirect loop: point the client at the final URL.', facts: hops };
        }
        current = next;
        continue;
      }
      answer = response;
      finalUrl = current;
      break;
    }
    const status = answer!.status;
    const redirects = hops.filter((h) => /^3\d\d /.test(h.value)).length;
    const redirected = redirects > 0;
    const redirectNote = redirected ? ` after ${redirects} redirect(s), at ${redactor.url(finalUrl.href)}` : '';
    if (status === 404) {
      httpFailed = true;
      return { verdict: 'failed', detail: `The server answers 404 Not Found at ${finalUrl.pathname}${redirectNote}: nothing is served at this path.`, hint: 'Check the URL\'s path: MCP endpoints are often /mcp (Streamable HTTP) or /sse (legacy HTTP+SSE).', facts: hops };
    }
    if (status >= 500) {
      httpFailed = true;
      return { verdict: 'failed', detail: `The server answers ${status} ${answer!.statusText}${redirectNote}: it failed handling the request.`, hint: "The server's own logs say why.", facts: hops };
    }
    if (redirected) {
      const offOrigin = finalUrl.origin !== endpoint.origin;
      return { verdict: 'warning', detail: `Reachable${redirectNote} (${status}).${offOrigin ? ' The redirect leaves the origin: credentials are not sent on.' : ''}`, hint: `Configure the final URL (${redactor.url(finalUrl.href)}): some clients turn a redirected POST into a GET.`, facts: hops };
    }
    const legacyNote = legacySse ? (target.transport === 'sse' ? ' to a GET (legacy HTTP+SSE)' : ` to a GET: the POST was refused, and this is a legacy HTTP+SSE endpoint (the 2024-11-05 transport)`) : '';
    return { verdict: 'ok', detail: `The server answers ${status} ${answer!.statusText}${legacyNote}.`, facts: hops };
  });
  if (!answer || httpFailed) return skipFrom('content-type', answer ? 'The endpoint does not serve MCP at this URL.' : 'No HTTP answer.');
  const first = answer;

  // ---- content type
  const needsAuth = first.status === 401 || first.status === 403;
  let servesMcp = true;
  if (needsAuth) runner.skip('content-type', titles['content-type'], `The server wants authorization first (${first.status}).`);
  else
    await runner.run('content-type', titles['content-type'], t, async () => {
      const outcome = legacySse ? judgeLegacyStream(first, finalUrl) : judgeContentType(first);
      servesMcp = outcome.verdict !== 'failed';
      return outcome;
    });

  // ---- CORS
  await runner.run('cors', titles.cors, t, (signal) => corsStep(finalUrl, baseHeaders, legacySse, signal));

  // ---- OAuth
  await oauthSteps(runner, { endpoint: finalUrl, first, headers: baseHeaders, redactor, timeoutMs: t, hasToken: Object.keys(baseHeaders).includes('authorization') });

  const authBlocked = needsAuth && !runner.steps.some((s) => s.id === 'registration' && (s.verdict === 'ok' || s.verdict === 'warning'));
  await protocolSteps(
    runner,
    target,
    redactor,
    options.protocolTimeoutMs,
    !servesMcp ? 'The URL does not serve MCP.' : needsAuth ? (authBlocked ? 'The server wants authorization and offers no way to get it.' : 'The server wants authorization: sign in, then run the doctor again.') : undefined,
  );

  // ---- the GET stream, on the session our own initialize (the http step) opened
  const spoke = runner.steps.some((s) => s.id === 'initialize-2025' && s.verdict === 'ok');
  if (!servesMcp || needsAuth || !spoke) runner.skip('listen', LISTEN_TITLE, spoke ? 'The URL does not serve MCP.' : 'Only a 2025-era Streamable HTTP session has a GET stream.');
  else if (legacySse) runner.skip('listen', LISTEN_TITLE, 'The legacy HTTP+SSE transport carries everything on its one GET stream (seen above).');
  else await runner.run('listen', LISTEN_TITLE, t, (signal) => listenStep(finalUrl, first, baseHeaders, signal));
}

/** Our initialize's session (if the server keeps sessions): initialized, then GET, then DELETE. */
async function listenStep(url: URL, first: RawResponse, headers: Record<string, string>, signal: AbortSignal): Promise<StepOutcome> {
  const sessionId = typeof first.headers['mcp-session-id'] === 'string' ? first.headers['mcp-session-id'] : undefined;
  const init = bodyMessage(first.body, String(first.headers['content-type'] ?? '')) as { result?: { protocolVersion?: unknown } } | undefined;
  const version = typeof init?.result?.protocolVersion === 'string' ? init.result.protocolVersion : '2025-11-25';
  const session = { ...headers, 'mcp-protocol-version': version, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  await rawRequest(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }, signal);
  const response = await rawRequest(url, { method: 'GET', headers: { ...session, accept: 'text/event-stream' }, headersOnly: true }, signal);
  if (sessionId) await rawRequest(url, { method: 'DELETE', headers: session }, signal).catch(() => undefined);
  const type = String(response.headers['content-type'] ?? '');
  const facts = [
    { label: 'status', value: `${response.status} ${response.statusText}` },
    { label: 'content-type', value: type || 'none' },
    { label: 'session', value: sessionId ? 'yes (Mcp-Session-Id)' : 'none (stateless)' },
  ];
  if (response.status === 200 && type.includes('text/event-stream')) return { verdict: 'ok', detail: 'The server opens a GET event stream for its own notifications and requests.', facts };
  if (response.status === 405) return { verdict: 'info', detail: "The server offers no GET stream (405): it sends its notifications only inside a request's answer. That is allowed.", facts };
  if (response.status === 200) return { verdict: 'warning', detail: `The GET stream answers 200 but with content-type "${type || 'none'}", not text/event-stream.`, hint: 'A GET on the MCP endpoint must answer text/event-stream, or 405 when the server offers no stream.', facts };
  return { verdict: 'warning', detail: `The GET stream answers ${response.status} ${response.statusText}; a server without one should answer 405.`, hint: 'Server-initiated messages (list_changed, progress outside a request) may never arrive.', facts };
}

function judgeContentType(response: RawResponse): StepOutcome {
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  const facts = [
    { label: 'status', value: `${response.status} ${response.statusText}` },
    { label: 'content-type', value: type || 'none' },
    { label: 'body (start)', value: cut(response.body.replace(/\s+/g, ' '), 300) || '(empty)' },
  ];
  if (response.status === 406) return { verdict: 'failed', detail: 'The server answers 406 Not Acceptable to a POST with Accept: application/json, text/event-stream.', hint: 'The server answers 406: it expects Accept: application/json, text/event-stream — check a proxy in between, or whether it is a legacy HTTP+SSE server (transport sse).', facts };
  if (response.status === 415) return { verdict: 'failed', detail: 'The server answers 415 Unsupported Media Type to a JSON body.', hint: 'An MCP endpoint takes Content-Type: application/json; check a proxy in between.', facts };
  if (type.includes('text/html') || /^\s*<(!doctype html|html)/i.test(response.body)) return { verdict: 'failed', detail: 'This URL serves a web page (text/html), not an MCP endpoint.', hint: 'Point the client at the MCP endpoint itself (often /mcp), not at a site or a docs page.', facts };
  const message = bodyMessage(response.body, type);
  const isRpc = typeof message === 'object' && message !== null && (message as { jsonrpc?: unknown }).jsonrpc === '2.0';
  if (type.includes('application/json') || type.includes('text/event-stream')) {
    if (isRpc) {
      const error = (message as { error?: { message?: unknown } }).error;
      if (error) return { verdict: 'ok', detail: `JSON-RPC over ${type.split(';')[0]}; the server refused a 2025 initialize (${cut(String(error.message ?? ''), 200)}) — the era steps below say more.`, facts };
      return { verdict: 'ok', detail: `JSON-RPC over ${type.split(';')[0]}.`, facts };
    }
    if (response.status === 405) return { verdict: 'failed', detail: 'The server refuses POST here (405): this may be a legacy HTTP+SSE endpoint, or not MCP.', hint: 'A legacy server takes its GET stream at /sse: set the transport to sse.', facts };
    return { verdict: 'failed', detail: `The answer is ${type.split(';')[0]} but not a JSON-RPC message (${response.status}${response.truncated ? ', more than the 64 KiB read' : ''}).`, hint: 'An MCP endpoint answers initialize with a JSON-RPC message: check the path, or a proxy in between.', facts };
  }
  if (response.status === 405) return { verdict: 'failed', detail: 'The server refuses POST here (405).', hint: 'A legacy HTTP+SSE server takes a GET at /sse: set the transport to sse, or check the path.', facts };
  return { verdict: 'failed', detail: `The answer's content type is "${type || 'none'}" (${response.status}), neither application/json nor text/event-stream: not an MCP endpoint.`, hint: 'Point the client at the MCP endpoint itself.', facts };
}

function judgeLegacyStream(response: RawResponse, url: URL): StepOutcome {
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  const endpoint = endpointEvent(response.body);
  const facts = [
    { label: 'status', value: `${response.status} ${response.statusText}` },
    { label: 'content-type', value: type || 'none' },
    { label: 'endpoint event', value: endpoint ?? 'none' },
  ];
  if (response.status !== 200 || !type.includes('text/event-stream')) return { verdict: 'failed', detail: `A GET for the legacy HTTP+SSE stream answers ${response.status} with "${type || 'no content type'}", not an event stream.`, hint: 'A legacy server serves its stream at its SSE path (often /sse); a current server takes POSTs: try transport auto.', facts };
  if (!endpoint) return { verdict: 'failed', detail: 'The event stream never named its message endpoint (no `endpoint` event).', hint: 'A legacy HTTP+SSE server must send an `endpoint` event first.', facts };
  let where: URL | undefined;
  try {
    where = new URL(endpoint, url);
  } catch {
    where = undefined;
  }
  if (!where) return { verdict: 'failed', detail: `The \`endpoint\` event is not a URL: "${cut(endpoint, 200)}".`, facts };
  if (where.origin !== url.origin) return { verdict: 'failed', detail: `The \`endpoint\` event points to another origin (${where.origin}); clients refuse it.`, hint: 'The message endpoint must be on the stream\'s own origin.', facts };
  return { verdict: 'ok', detail: `A legacy HTTP+SSE stream (text/event-stream); messages go to ${where.pathname}.`, facts };
}

async function corsStep(url: URL, headers: Record<string, string>, legacySse: boolean, signal: AbortSignal): Promise<StepOutcome> {
  const origin = 'http://localhost:6274';
  const response = await rawRequest(
    url,
    {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-session-id, authorization', ...(headers['user-agent'] ? { 'user-agent': headers['user-agent'] } : {}) },
    },
    signal,
  );
  const allowOrigin = String(response.headers['access-control-allow-origin'] ?? '');
  const allowHeaders = String(response.headers['access-control-allow-headers'] ?? '').toLowerCase();
  const expose = String(response.headers['access-control-expose-headers'] ?? '').toLowerCase();
  const facts = [
    { label: 'preflight', value: `${response.status} ${response.statusText}` },
    { label: 'allow-origin', value: allowOrigin || 'none' },
    { label: 'allow-headers', value: allowHeaders || 'none' },
    { label: 'expose-headers', value: expose || 'none' },
  ];
  const why = 'Not relevant to Switchboard (its requests come from Node, in browser mode too); only to clients in a web page.';
  if (!allowOrigin) return { verdict: 'info', detail: `${why} For those: the server allows no cross-origin requests (its preflight names no allowed origin).`, facts };
  const missing = ['mcp-protocol-version', 'mcp-session-id', 'content-type'].filter((h) => allowHeaders !== '*' && !allowHeaders.includes(h));
  // A legacy HTTP+SSE session lives in the message endpoint's URL, not in a header.
  const exposesSession = legacySse || expose === '*' || expose.includes('mcp-session-id');
  return { verdict: 'info', detail: `${why} For those: origin ${allowOrigin === '*' ? 'any' : allowOrigin} allowed${missing.length ? `, but not the headers ${missing.join(', ')}` : ''}${exposesSession ? '' : '; Mcp-Session-Id is not exposed, so a page cannot keep a session'}.`, facts };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1' || host.endsWith('.localhost');
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function withoutBody(headers: Record<string, string>): Record<string, string> {
  const { 'content-type': _t, ...rest } = headers;
  void _t;
  return rest;
}

export function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const { authorization: _a, cookie: _c, ...rest } = headers;
  void _a;
  void _c;
  return rest;
}
