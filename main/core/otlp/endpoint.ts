/**
 * An OTLP/HTTP endpoint as given by a person (#16): its URL and headers, checked before anything
 * is sent. No OpenTelemetry package here: the CLI and the core check flags and arguments without
 * loading the SDK (it is loaded only when spans are made: see ./lazy.ts).
 */

export interface OtlpEndpoint {
  url: string;
  headers: { name: string; value: string }[];
}

/**
 * The traces URL: an endpoint given as a bare origin (`http://collector:4318`) gets the OTLP/HTTP
 * path `/v1/traces`; any other path is used as it is. Throws on anything but http(s).
 */
export function tracesUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`Not a URL: ${JSON.stringify(url.slice(0, 200))}.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`An OTLP/HTTP endpoint is http:// or https://, not ${parsed.protocol}//.`);
  if (parsed.pathname === '' || parsed.pathname === '/') parsed.pathname = '/v1/traces';
  return parsed.toString();
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Thrown before anything is sent: the endpoint or a header cannot be sent as given. */
export class OtlpEndpointError extends Error {}

/** The endpoint as it can be sent: an http(s) URL, header names that are HTTP tokens, values without control characters. */
export function checkEndpoint(endpoint: OtlpEndpoint): void {
  try {
    tracesUrl(endpoint.url);
  } catch (error) {
    throw new OtlpEndpointError((error as Error).message);
  }
  for (const { name, value } of endpoint.headers) {
    if (!TOKEN.test(name)) throw new OtlpEndpointError(`Header name ${JSON.stringify(name.slice(0, 60))} is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-).`);
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) throw new OtlpEndpointError(`Header ${name}'s value holds a line break or another control character.`);
  }
}

/** Parses `--otlp-header "Name: value"` (or `Name=value`). */
export function parseHeaderFlag(flag: string): { name: string; value: string } {
  const at = flag.search(/[:=]/);
  const name = at > 0 ? flag.slice(0, at).trim() : '';
  if (!name || !TOKEN.test(name)) throw new Error(`--otlp-header wants "Name: value", got ${JSON.stringify(flag.slice(0, 60).replace(/[:=].*/, ':…'))}.`);
  return { name, value: flag.slice(at + 1).trim() };
}

