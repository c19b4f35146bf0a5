/**
 * Log lines about a server: its log notifications at their own level (all eight of MCP's syslog
 * levels, never folded), and what went wrong with it — attributed to it (`source: 'protocol'`
 * with its id), not to Switchboard.
 */
import { safeStringify } from '../../../contract/bounded-json';
import { LogLevel, type Envelope } from '../../../contract';
import type { ErrorDetailKind } from '../../../contract/errors';
import type { Dispatch } from '../dispatcher';
import type { LogBus } from './log-bus';

const LEVELS = new Set<string>(LogLevel.options);

/** notifications/message → one line at the level the server sent (an unknown level reads as info, and says so). */
export function writeServerLog(logs: LogBus, serverId: string, level: unknown, logger: unknown, data: unknown): void {
  const known = typeof level === 'string' && LEVELS.has(level);
  const prefix = `${known ? '' : `[level ${safeStringify(level).slice(0, 40)}] `}${typeof logger === 'string' && logger ? `[${logger}] ` : ''}`;
  logs.write({ serverId, source: 'server', level: known ? (level as LogLevel) : 'info', text: `${prefix}${typeof data === 'string' ? data : safeStringify(data)}` });
}

/** What went wrong with a server (its error answers, failed lists, broken messages, lost connections). */
export function writeServerError(logs: LogBus, serverId: string, message: string): void {
  logs.write({ serverId, source: 'protocol', level: 'error', text: message });
}

/** Failures the server caused: it answered with an error, refused, timed out, or could not be reached. Not ours: a cancel, a method we would not send. */
const SERVER_CAUSED = new Set<ErrorDetailKind>(['rpc', 'client-rejected', 'session-expired', 'timeout', 'unreachable', 'protocol', 'auth', 'tool']);

/**
 * Every failed request the server caused is also a log line of that server: the view that
 * asked shows it once, the log keeps it (with the server's name, not "Switchboard").
 */
export function logServerFailures(dispatch: Dispatch, logs: LogBus): Dispatch {
  return async (method, rawArgs) => {
    const envelope: Envelope = await dispatch(method, rawArgs);
    if (!envelope.ok) {
      const serverId = serverIdOf(rawArgs);
      const kind = envelope.error.detail?.kind;
      if (serverId && kind && SERVER_CAUSED.has(kind)) writeServerError(logs, serverId, envelope.error.message);
    }
    return envelope;
  };
}

function serverIdOf(args: unknown): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  const { serverId, id } = args as { serverId?: unknown; id?: unknown };
  const value = typeof serverId === 'string' ? serverId : typeof id === 'string' ? id : undefined;
  return value && value.length <= 200 ? value : undefined;
}
