/**
 * Small helpers the integration tests share: call a core method and unwrap its envelope, wait for
 * an observable condition, find a loopback port nothing listens on.
 */
import { createServer } from 'node:net';
import type { MethodName, Result } from '../../contract';
import type { Core } from '../../main/core/app';

/** The method's result, or a throw naming the method and the core's message. */
export async function call<M extends MethodName>(core: Core, method: M, args: unknown): Promise<Result<M>> {
  const envelope = await core.dispatch(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
  return envelope.result as Result<M>;
}

/** Polls `probe` every 50 ms until it gives a value; throws "timed out waiting for WHAT" after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A loopback port that was free a moment ago (listened on, then closed). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
