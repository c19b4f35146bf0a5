/**
 * The browser-mode gate: a per-launch token, Host and Origin allow-lists. Pure functions over
 * headers, so each rule is tested on its own and the HTTP server stays thin.
 *
 * Why: an inspector that spawns processes is a remote-code-execution service for any web page
 * that can reach it (CVE-2025-49596 in the official Inspector). Every request, the page itself
 * included, must prove it came from the person who launched us.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

/**
 * The token cookie's name is per instance: browsers send a 127.0.0.1 cookie to every port, so
 * one shared name let a second launch overwrite (log out) the first one's.
 */
export const TOKEN_COOKIE_PREFIX = 'switchboard_token';
export const TOKEN_HEADER = 'x-switchboard-token';
export const TOKEN_QUERY = 'token';

/**
 * An instance's id for its cookie name, derived from its token: a new token (every launch) is a
 * new name, while a restart with the same token and port (a test's fixed token) finds its page's
 * cookie again. A hash prefix, so the name reveals nothing of the token.
 */
export function instanceIdOf(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

/** `switchboard_token_<port>_<instance id>`: unique to one listening instance. */
export function tokenCookieName(port: number, instanceId: string = randomBytes(6).toString('hex')): string {
  return `${TOKEN_COOKIE_PREFIX}_${port}_${instanceId}`;
}

/** The Set-Cookie header that trades the launch token for the instance's cookie. */
export function tokenCookie(name: string, token: string): string {
  return `${name}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** 256 bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (hashing first makes the lengths equal). */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Host names a request may be addressed to; anything else is DNS rebinding or a proxy we don't know. */
export function allowedHosts(port: number, extra: string[] = []): Set<string> {
  return new Set([...LOOPBACK_NAMES, ...extra].map((name) => `${name}:${port}`.toLowerCase()));
}

export function allowedOrigins(port: number, extra: string[] = []): Set<string> {
  return new Set([...LOOPBACK_NAMES, ...extra].map((name) => `http://${name}:${port}`.toLowerCase()));
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export type GateVerdict =
  | { ok: true; via: 'cookie' | 'header' | 'query' }
  | { ok: false; status: 401 | 403; reason: string };

export interface GateInput {
  host: string | undefined;
  origin: string | undefined;
  cookie: string | undefined;
  headerToken: string | undefined;
  queryToken: string | null;
  /** A WebSocket upgrade must carry an Origin (browsers always send one). */
  requireOrigin: boolean;
}

export function checkRequest(input: GateInput, token: string, hosts: Set<string>, origins: Set<string>, cookieName: string): GateVerdict {
  if (!input.host || !hosts.has(input.host.toLowerCase())) {
    return { ok: false, status: 403, reason: 'Host header not allowed' };
  }
  if (input.origin !== undefined) {
    if (!origins.has(input.origin.toLowerCase())) return { ok: false, status: 403, reason: 'Origin not allowed' };
  } else if (input.requireOrigin) {
    return { ok: false, status: 403, reason: 'Origin header required' };
  }
  if (tokenMatches(token, cookieValue(input.cookie, cookieName))) return { ok: true, via: 'cookie' };
  if (tokenMatches(token, input.headerToken)) return { ok: true, via: 'header' };
  if (input.queryToken !== null && tokenMatches(token, input.queryToken)) return { ok: true, via: 'query' };
  return { ok: false, status: 401, reason: 'Missing or wrong token' };
}

const WILDCARDS = new Set(['0.0.0.0', '::', '', '*', '[::]']);

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Loopback binds only, unless the user passed the loudly named flag. The address is parsed as
 * an IP address (a name such as `127.evil.example` would be resolved through DNS); the one
 * name allowed is `localhost`.
 */
export function checkBindAddress(host: string, allowNonLoopback: boolean): string | undefined {
  if (allowNonLoopback) return undefined;
  if (WILDCARDS.has(host)) {
    return `Refusing to bind ${host || '(all interfaces)'}: browser mode can spawn processes, so it listens on 127.0.0.1 only. Pass --UNSAFE-expose-to-network if you really mean it.`;
  }
  if (host === 'localhost') return undefined;
  const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const family = isIP(address);
  if (family === 0) {
    return `Refusing to bind ${host}: not an IP address. Give a loopback address (127.0.0.1, ::1) or localhost; other names are resolved through DNS and are allowed only with --UNSAFE-expose-to-network.`;
  }
  if (!LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6')) {
    return `Refusing to bind ${host}: only loopback addresses are allowed without --UNSAFE-expose-to-network.`;
  }
  return undefined;
}
