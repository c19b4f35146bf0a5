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
  `{"type":"event","event":${safeStringify(event)}${payload === undefined ? '' : `,"payload":${safeStringify(event === 'traceBatch' ? packTraceBatch(payload) : payload)}`}}`;

/**
 * The string fields a trace push's events most often all have alike: under a flood, a push of
 * 500 notifications is one server, session, exchange, channel, kind and direction.
 */
const SHARED_KEYS = ['server', 'channel', 'kind', 'dir', 'exchange', 'session'] as const;

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A trace push as the WebSocket carries it: the fields every one of its events has alike (same
 * string) are sent once, as `shared`, and left out of each event. Half the bytes of a flood's push
 * (~160 of ~315 a notification): main writes, Chromium carries and the page parses half as much,
 * and the page's events share one string per value. `unpackTraceBatch` gives the push back as it
 * was. Electron's IPC carries the objects themselves and never packs.
 */
export function packTraceBatch(payload: unknown): unknown {
  if (!isFields(payload)) return payload;
  const { events, ...rest } = payload;
  if (!Array.isArray(events) || events.length < 2 || !events.every(isFields)) return payload;
  const shared: Record<string, string> = {};
  const keys = new Set<string>();
  for (const key of SHARED_KEYS) {
    const value: unknown = events[0]![key];
    if (typeof value !== 'string' || !events.every((event) => Object.hasOwn(event, key) && event[key] === value)) continue;
    shared[key] = value;
    keys.add(key);
  }
  if (keys.size === 0) return payload;
  const lean = (event: Fields): Fields => {
    const copy: Fields = {};
    for (const key of Object.keys(event)) if (!keys.has(key)) copy[key] = event[key];
    return copy;
  };
  return { shared, events: events.map(lean), ...rest };
}

/** A trace push off the WebSocket, whole again: each event gets the `shared` fields back (first, as they came). */
export function unpackTraceBatch(payload: unknown): unknown {
  if (!isFields(payload) || !isFields(payload.shared) || !Array.isArray(payload.events)) return payload;
  const { shared, events, ...rest } = payload as { shared: Fields; events: unknown[] };
  const keys = Object.keys(shared).filter((key) => (SHARED_KEYS as readonly string[]).includes(key));
  return {
    events: events.map((event) => {
      if (!isFields(event)) return event;
      const whole: Fields = {};
      for (const key of keys) whole[key] = shared[key];
      for (const key of Object.keys(event)) if (key !== '__proto__') whole[key] = event[key];
      return whole;
    }),
    ...rest,
  };
}

export type ClientFrame = z.input<typeof WsFrame>;

/** The WebSocket path. (A non-browser client that has no cookie sends the token in `x-switchboard-token`: main/adapters/web/security.ts.) */
export const WS_PATH = '/ws';
