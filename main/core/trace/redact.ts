/**
 * Redaction at the source: secrets are removed before an event is recorded, so no trace, log
 * or export can leak them. Header names, OAuth fields, secret-looking URL parameters and
 * command-line options by rule; configured secret values (env values, header values, secret
 * arguments and URL parameters, tokens learnt at run time) by literal match.
 *
 * A configured secret of any length is replaced wherever it is a whole value: a JSON string,
 * a header value, a URL parameter, a command-line argument (or the value of `--name=value`),
 * a whole line of text. Inside longer free text (a stderr line, an error message, a serialized
 * export line) it is replaced only from SUBSTRING_MIN characters on: a two-character secret
 * would otherwise cut every occurrence of those two letters out of the trace.
 */
import type { ServerTarget } from '../../../contract';
import { setOwn } from '../../../contract/bounded-json';

export const REDACTED = '[redacted]';

/** Secrets this long or longer are removed from inside free text too; shorter ones only as whole values. */
export const SUBSTRING_MIN = 6;

/**
 * Names of URL parameters and command-line options whose values are credentials:
 * `api_key`, `apikey`, `key`, `token`, `access_token`, `auth`, `password`, `secret`, `sig`, …
 */
const SECRET_NAME = /token|secret|passw(or)?d|passphrase|api[-_.]?key|access[-_.]?key|private[-_.]?key|credential|signature|bearer|(^|[-_.])(key|pat|sig|auth|pwd|pass)$/i;

/** Names that mention a token or key but carry none: `token_type`, `token_endpoint`, `key_url`, `token_type_hint`. */
const DESCRIBES_A_SECRET = /(type|endpoint|url|uri|hint|expires|expires[-_]?(in|at)|length|count|limit|id[-_]?hint|file|path)$/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !DESCRIBES_A_SECRET.test(name);
}

const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|apikey|x-auth-token|x-access-token|x-goog-api-key|x-amz-security-token)$|token|secret|password|api[-_]?key/i;
/** OAuth and credential fields in JSON or form bodies. */
const SECRET_FIELDS = new Set([
  'code',
  'code_verifier',
  'refresh_token',
  'access_token',
  'id_token',
  'client_secret',
  'password',
  'assertion',
  'client_assertion',
  'subject_token',
  'actor_token',
]);

export class Redactor {
  /** Removed from inside free text as well (SUBSTRING_MIN characters or more). */
  private readonly secrets = new Set<string>();
  /** Every secret, of any length: removed where it is a whole value. */
  private readonly whole = new Set<string>();

  /**
   * How each secret would stand in JSON text as a whole string value (`"…"`), when JSON writes it
   * as itself; undefined once a secret has a character JSON escapes (a quote, a backslash, a
   * control character, a lone surrogate): text could then hide it (`leavesJson`).
   */
  private quoted: Map<string, string> | undefined = new Map();

  /** A value that must never be recorded. */
  addSecret(value: string | undefined): void {
    if (!value) return;
    this.whole.add(value);
    if (value.length >= SUBSTRING_MIN) this.secrets.add(value);
    const quoted = JSON.stringify(value);
    if (quoted.length !== value.length + 2) this.quoted = undefined;
    else this.quoted?.set(value, quoted);
  }

  /**
   * Whether `json(value, false)` would hand back the value parsed from this JSON text as it is,
   * told from the text (no walk, no copy): no secret is in it, neither inside a string (one of
   * SUBSTRING_MIN characters or more) nor as a whole string. Only for text that writes every
   * string character as itself or a short escape (`\n`, `\"`: no `\u` or `\/`, scanJsonText's
   * `canonical`), and only while every secret is written as itself in JSON; otherwise false.
   * Keys count too (json() keeps them): a secret in a key only costs the walk.
   */
  leavesJson(text: string): boolean {
    if (this.whole.size === 0) return true;
    if (!this.quoted) return false;
    for (const [secret, quoted] of this.quoted) if (text.includes(secret.length >= SUBSTRING_MIN ? secret : quoted)) return false;
    return true;
  }

  get hasSecrets(): boolean {
    return this.whole.size > 0;
  }

  /** A configured secret standing as a whole value. */
  isSecret(value: string): boolean {
    return this.whole.has(value);
  }

  headers(headers: Headers | Record<string, string> | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    if (!headers) return out;
    if (headers instanceof Headers) {
      // Headers iterate with lower-case names already.
      headers.forEach((value, name) => {
        out[name] = this.header(name, value);
      });
      return out;
    }
    for (const [rawName, value] of Object.entries(headers)) {
      const name = rawName.toLowerCase();
      out[name] = this.header(name, value);
    }
    return out;
  }

  /** One header's value as the trace keeps it (`name` in lower case). */
  private header(name: string, value: string): string {
    // A redirect back to a client carries the authorization code in its Location.
    return isSecretHeaderName(name) ? redactHeaderValue(name, value) : name === 'location' || name === 'content-location' ? this.url(value) : this.text(value);
  }

  /** Literal secrets out of free text (and a text that is a secret as a whole). */
  text(value: string): string {
    if (this.whole.size === 0) return value;
    if (this.whole.has(value)) return REDACTED;
    let result = value;
    for (const secret of this.secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  }

  /** A parsed body: OAuth fields by name, then literal secrets everywhere. */
  json(value: unknown, credentialFields: boolean): unknown {
    // Nothing to remove: hand back the (freshly parsed) value without copying it.
    if (!credentialFields && this.whole.size === 0) return value;
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.json(v, credentialFields));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) {
        setOwn(out, key, credentialFields && SECRET_FIELDS.has(key) && v !== undefined && v !== null ? REDACTED : this.json(v, credentialFields));
      }
      return out;
    }
    return value;
  }

  /** `a=1&code=xyz` with credential fields (and values that are configured secrets) removed. */
  form(body: string): string {
    const params = new URLSearchParams(body);
    for (const [key, value] of [...params.entries()]) if (SECRET_FIELDS.has(key) || this.whole.has(value)) params.set(key, REDACTED);
    return this.text(params.toString());
  }

  /**
   * A command line's arguments: the value of a secret-looking option (`--token=…`,
   * `--api-key VALUE`) and every argument that is a configured secret, replaced.
   */
  args(args: readonly string[]): string[] {
    const out: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      const option = OPTION.exec(arg);
      if (option?.[2] !== undefined) {
        out.push(isSecretName(option[1]!) || this.whole.has(option[2]) ? `${arg.slice(0, arg.length - option[2].length)}${REDACTED}` : this.text(arg));
        continue;
      }
      out.push(this.whole.has(arg) ? REDACTED : this.text(arg));
      const next = args[i + 1];
      if (option && isSecretName(option[1]!) && next !== undefined && !next.startsWith('-')) {
        out.push(REDACTED);
        i++;
      }
    }
    return out;
  }

  /**
   * A URL with credential parameters removed: in the query (authorization codes ride in
   * redirects) and in the fragment (implicit-style redirects), absolute or relative.
   */
  url(raw: string): string {
    // No query, fragment or user:password: nothing a URL parser would find (the usual MCP endpoint).
    if (!URL_PARTS.test(raw)) return this.text(raw);
    const relative = !URL.canParse(raw);
    if (relative && !URL.canParse(raw, RELATIVE_BASE)) return this.text(raw);
    const url = new URL(raw, relative ? RELATIVE_BASE : undefined);
    let changed = false;
    for (const [key, value] of [...url.searchParams.entries()]) {
      if (this.isSecretParam(key, value)) {
        url.searchParams.set(key, REDACTED);
        changed = true;
      }
    }
    if (url.hash.includes('=')) {
      const fragment = new URLSearchParams(url.hash.slice(1));
      for (const [key, value] of [...fragment.entries()]) {
        if (this.isSecretParam(key, value)) {
          fragment.set(key, REDACTED);
          changed = true;
        }
      }
      if (changed) url.hash = fragment.toString();
    }
    if (url.username || url.password) {
      url.username = '';
      url.password = '';
      changed = true;
    }
    if (!changed) return this.text(raw);
    return this.text(relative ? url.href.slice(RELATIVE_BASE.length - 1) : url.toString());
  }

  private isSecretParam(name: string, value: string): boolean {
    return SECRET_FIELDS.has(name) || isSecretName(name) || this.whole.has(value);
  }
}

/** What `url()` redacts lives after a `?` or `#`, or before an `@`. */
const URL_PARTS = /[?#@]/;

/** `--name=value` (group 2 set) or `--name` / `-n` (group 2 undefined). */
const OPTION = /^--?([A-Za-z0-9][\w.-]*)(?:=([\s\S]*))?$/;

/** A URL with its credential parameters and user:password removed (for configs written to exports). */
export function redactUrl(raw: string): string {
  return new Redactor().url(raw);
}

/** A command line with its secret options' values removed (for configs written to exports). */
export function redactArgs(args: readonly string[]): string[] {
  return new Redactor().args(args);
}

/**
 * The values in a server's configuration that must never be recorded: every env value and
 * every header value unless marked non-secret (`nonSecretEnv`, `nonSecretHeaders`), header
 * values without their scheme (`Bearer …`), values of secret-looking command-line options and
 * URL parameters, and an OAuth client secret.
 */
/**
 * Standard headers that carry no credential: their configured values stay visible (redacting
 * `Accept: application/json` would blank that value in every exchange of the trace).
 */
const PLAIN_HEADERS = new Set(['accept', 'accept-encoding', 'accept-language', 'content-type', 'user-agent', 'cache-control', 'mcp-protocol-version', 'origin', 'referer']);

export function configSecrets(target: ServerTarget): string[] {
  if (target.type === 'stdio') {
    const open = new Set(target.nonSecretEnv);
    const env = Object.entries(target.env)
      .filter(([key]) => !open.has(key))
      .map(([, value]) => value);
    return [...env, ...secretArgValues(target.args)];
  }
  const open = new Set([...PLAIN_HEADERS, ...(target.nonSecretHeaders ?? []).map((name) => name.toLowerCase())]);
  const headers = Object.entries(target.headers)
    .filter(([name]) => !open.has(name.toLowerCase()))
    .flatMap(([, value]) => [value, value.replace(/^\w+\s+/, '')]);
  const query: string[] = [];
  if (URL.canParse(target.url)) {
    const url = new URL(target.url);
    const fragment = new URLSearchParams(url.hash.slice(1));
    for (const [name, value] of [...url.searchParams, ...fragment]) if ((SECRET_FIELDS.has(name) || isSecretName(name)) && value) query.push(value);
    if (url.password) query.push(decodeURIComponent(url.password));
  }
  return [...headers, ...query, ...(target.oauth?.clientSecret ? [target.oauth.clientSecret] : [])];
}

/** The values of `--token=…` / `--api-key VALUE` style options. */
function secretArgValues(args: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = OPTION.exec(args[i]!);
    if (!option || !isSecretName(option[1]!)) continue;
    if (option[2] !== undefined) {
      if (option[2]) values.push(option[2]);
    } else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('-')) values.push(args[++i]!);
  }
  return values;
}

/** Where relative references are resolved to be parsed; cut off again afterwards. */
const RELATIVE_BASE = 'http://relative.invalid/';

/** Header names seen, and whether each is secret (the same dozen names repeat on every exchange). */
const secretHeaderNames = new Map<string, boolean>();

export function isSecretHeaderName(name: string): boolean {
  let secret = secretHeaderNames.get(name);
  if (secret === undefined) {
    const lower = name.toLowerCase();
    secret = SECRET_HEADERS.test(lower) && !isMcpHeader(lower);
    if (secretHeaderNames.size >= 1024) secretHeaderNames.clear();
    secretHeaderNames.set(name, secret);
  }
  return secret;
}

function isMcpHeader(name: string): boolean {
  return name.startsWith('mcp-');
}

/** Keep the scheme (Bearer, Basic) visible: it is often what is wrong. */
function redactHeaderValue(name: string, value: string): string {
  if (name === 'authorization' || name === 'proxy-authorization') {
    const scheme = /^(\w+)\s/.exec(value)?.[1];
    return scheme ? `${scheme} ${REDACTED}` : REDACTED;
  }
  return REDACTED;
}
