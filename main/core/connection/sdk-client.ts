/**
 * The SDK's Client with one shortcut on the way in: a server's notification goes straight to the
 * Client's own notification dispatch (`_onnotification`, the hook the SDK documents for
 * subclasses), instead of through the SDK's classification first.
 *
 * Why: the SDK's `Protocol.connect` hands every inbound message to a chain of zod checks (a
 * result? an error? a request? a notification?), so a notification fails three strict-object
 * parses before the fourth succeeds, and a failed parse is far dearer than a successful one.
 * bench/notification-dispatch.ts: 64.9 µs of client CPU a notification for the SDK's Client,
 * 36.4 µs for this one; main under a 100,000-notification flood used ~25 % less CPU.
 *
 * Same behaviour: every one of those schemas is a strict object, and the notification schema
 * allows no `id`, `result` or `error`, while the result and request schemas require an `id` and
 * the error schema an `error`. So a message that passes `isJSONRPCNotification` is exactly one
 * the chain would give to `_onnotification` (test/unit/sdk-client.test.ts checks it against the
 * SDK's own guards). Everything else takes the SDK's path unchanged, and a handler set on the
 * transport before connecting still sees every message first, as the SDK's wrapper does.
 */
import { Client, isJSONRPCNotification, type ConnectOptions, type JSONRPCNotification, type Transport } from '@modelcontextprotocol/client';

/** A notification as the SDK defines one; a message with an `id` or without a `method` is not looked at further (the common responses pay two property reads). */
export function isInboundNotification(message: unknown): message is JSONRPCNotification {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as { method?: unknown };
  return typeof m.method === 'string' && !('id' in m) && isJSONRPCNotification(message);
}

type OnMessage = NonNullable<Transport['onmessage']>;

export class SwitchboardClient extends Client {
  override async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    const preset = transport.onmessage;
    await super.connect(transport, options);
    const sdk = transport.onmessage;
    // Only over the SDK's own wrapper, on the transport it connected.
    if (!sdk || sdk === preset || this.transport !== transport) return;
    const direct = ((message: unknown, extra?: Parameters<OnMessage>[1]) => {
      if (!isInboundNotification(message)) return sdk(message as Parameters<OnMessage>[0], extra);
      preset?.(message, extra);
      this._onnotification(message, extra);
    }) as OnMessage;
    transport.onmessage = direct;
  }
}
