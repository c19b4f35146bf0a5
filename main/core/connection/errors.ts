/** Turns what the SDK and Node throw into sentences a user can act on. */
import type { ServerTarget } from '../../../contract';

export function describeConnectError(target: ServerTarget, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  if (target.type === 'stdio') {
    if (code === 'ENOENT') return `Command not found: "${target.command}". Check the command name and that it is on PATH.`;
    if (code === 'EACCES') return `Permission denied running "${target.command}".`;
    if (/closed|exit/i.test(raw)) return `The process "${target.command}" exited before completing the MCP handshake (${raw}). Its stderr is in Logs.`;
    return `stdio "${target.command}": ${raw}`;
  }
  if (code === 'ECONNREFUSED') return `Connection refused at ${target.url}: nothing is listening there.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Host not found for ${target.url} (DNS lookup failed).`;
  const status = /HTTP (\d{3})/.exec(raw)?.[1] ?? (raw.match(/\b(4\d\d|5\d\d)\b/)?.[1]);
  if (status) return `${target.url} answered HTTP ${status}: ${raw}`;
  return `${target.url}: ${raw}`;
}

/** The errno-style code of an error or of any error in its `cause` chain. */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
