/** Frames on the browser-mode WebSocket: requests in (`ClientFrame`), replies and events out. */
import { z } from 'zod';
import { safeStringify } from './bounded-json';
import type { Envelope, EventName } from './index';

export const WsFrame = z.object({
  id: z.union([z.string().max(64), z.number()]),
  method: z.string().max(64),
  args: z.unknown(),
});

export type ServerFrame =
  | { type: 'reply'; id: string | number | null; reply: Envelope }
  | { type: 'event'; event: EventName; payload: unknown };

/*
 * The encoders never throw, whatever a server sent: the carried value (a reply's result or
 * error, an event's payload) is serialized with `safeStringify`, so it is cut to
 * `LIMITS.carriedDepth` (a marker in place of what lies deeper) and anything else the engine
 * refuses (a BigInt, a cycle) becomes a marker naming the reason. The frame around it is ours
 * and always the same shape, so a reply always reaches the request it answers.
 */
export const encodeReply = (id: string | number | null, reply: Envelope): string => {
  const head = `{"type":"reply","id":${safeStringify(id)},"reply":`;
  return reply.ok
    ? `${head}{"ok":true${reply.result === undefined ? '' : `,"result":${safeStringify(reply.result)}`}}}`
    : `${head}{"ok":false,"error":${safeStringify(reply.error)}}}`;
};
export const encodeEvent = (event: EventName, payload: unknown): string =>
  `{"type":"event","event":${safeStringify(event)}${payload === undefined ? '' : `,"payload":${safeStringify(payload)}`}}`;

export type ClientFrame = z.input<typeof WsFrame>;

/** The WebSocket path. (A non-browser client that has no cookie sends the token in `x-switchboard-token`: main/adapters/web/security.ts.) */
export const WS_PATH = '/ws';
