/**
 * The renderer's Content-Security-Policy, one definition for both carriers. Server-supplied
 * text is hostile input: no inline script, no eval, no plugins, no framing, no form posts.
 * `frameSrc`: the MCP Apps sandbox origin, the only thing the renderer may frame (without it,
 * frames fall back to `default-src 'self'` as before).
 */
export function contentSecurityPolicy(extraConnectSrc: string[] = [], frameSrc: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Component libraries set inline style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...extraConnectSrc].join(' '),
    ...(frameSrc.length > 0 ? [`frame-src ${frameSrc.join(' ')}`] : []),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
