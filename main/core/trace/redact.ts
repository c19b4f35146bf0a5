/**
 * Redaction at the source: secrets are removed before an event is recorded, so no trace, log
 * or export can leak them. Header names and OAuth fields by rule; configured secret values
 * (env values, header values, tokens learnt at run time) by literal match anywhere.
 */
export const REDACTED = '[redacted]';

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
  private readonly secrets = new Set<string>();

  /** A value that must never be recorded (too-short values would redact everything, so they are ignored). */
  addSecret(value: string | undefined): void {
    if (value && value.length >= 6) this.secrets.add(value);
  }

  get hasSecrets(): boolean {
    return this.secrets.size > 0;
  }

  headers(headers: Headers | Record<string, string> | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    if (!headers) return out;
    const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
    for (const [rawName, value] of entries) {
      const name = rawName.toLowerCase();
      // A redirect back to a client carries the authorization code in its Location.
      out[name] = isSecretHeaderName(name) ? redactHeaderValue(name, value) : name === 'location' || name === 'content-location' ? this.url(value) : this.text(value);
    }
    return out;
  }

  /** Literal secrets out of free text. */
  text(value: string): string {
    if (this.secrets.size === 0) return value;
    let result = value;
    for (const secret of this.secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  }

  /** A parsed body: OAuth fields by name, then literal secrets everywhere. */
  json(value: unknown, credentialFields: boolean): unknown {
    // Nothing to remove: hand back the (freshly parsed) value without copying it.
    if (!credentialFields && this.secrets.size === 0) return value;
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.json(v, credentialFields));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) {
        out[key] = credentialFields && SECRET_FIELDS.has(key) && v !== undefined && v !== null ? REDACTED : this.json(v, credentialFields);
      }
      return out;
    }
    return value;
  }

  /** `a=1&code=xyz` with credential fields removed. */
  form(body: string): string {
    const params = new URLSearchParams(body);
    for (const key of [...params.keys()]) if (SECRET_FIELDS.has(key)) params.set(key, REDACTED);
    return this.text(params.toString());
  }

  /**
   * A URL with credential parameters removed: in the query (authorization codes ride in
   * redirects) and in the fragment (implicit-style redirects), absolute or relative.
   */
  url(raw: string): string {
    const relative = !URL.canParse(raw);
    if (relative && !URL.canParse(raw, RELATIVE_BASE)) return this.text(raw);
    const url = new URL(raw, relative ? RELATIVE_BASE : undefined);
    let changed = false;
    for (const key of [...url.searchParams.keys()]) {
      if (SECRET_FIELDS.has(key) || key === 'token') {
        url.searchParams.set(key, REDACTED);
        changed = true;
      }
    }
    if (url.hash.includes('=')) {
      const fragment = new URLSearchParams(url.hash.slice(1));
      for (const key of [...fragment.keys()]) {
        if (SECRET_FIELDS.has(key) || key === 'token') {
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
}

/** Where relative references are resolved to be parsed; cut off again afterwards. */
const RELATIVE_BASE = 'http://relative.invalid/';

export function isSecretHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.test(lower) && !isMcpHeader(lower);
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
