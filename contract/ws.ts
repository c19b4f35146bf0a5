/** Frames on the browser-mode WebSocket: requests in (`ClientFrame`), replies and events out. */
import { z } from 'zod';
import type { Envelope, EventName } from './index';

export const WsFrame = z.object({
  id: z.union([z.string().max(64), z.number()]),
  method: z.string().max(64),
  args: z.unknown(),
});

export type ServerFrame =
  | { type: 'reply'; id: string | number | null; reply: Envelope }
  | { type: 'event'; event: EventName; payload: unknown };

export const encodeReply = (id: string | number | null, reply: Envelope): string => JSON.stringify({ type: 'reply', id, reply } satisfies ServerFrame);
export const encodeEvent = (event: EventName, payload: unknown): string => JSON.stringify({ type: 'event', event, payload } satisfies ServerFrame);

export type ClientFrame = z.input<typeof WsFrame>;

/** The WebSocket path and the header a non-browser client may use instead of the cookie. */
export const WS_PATH = '/ws';
