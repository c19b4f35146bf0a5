import { describe, expect, it, vi } from 'vitest';
import { createDispatcher, type Handlers } from '../../main/core/dispatcher';
import { CoreError } from '../../main/core/errors';
import { METHOD_NAMES } from '../../contract';

function handlers(overrides: Partial<Handlers> = {}): Handlers {
  const unexpected = async () => {
    throw new Error('not under test');
  };
  const base = Object.fromEntries(METHOD_NAMES.map((m) => [m, unexpected])) as unknown as Handlers;
  return { ...base, ...overrides };
}

describe('dispatcher', () => {
  it('rejects malformed arguments with a clear, field-level error and never calls the handler', async () => {
    const addServer = vi.fn();
    const dispatch = createDispatcher(handlers({ addServer }));
    const reply = await dispatch('addServer', { name: '', target: { type: 'stdio', command: '   ' } });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe('invalid-arguments');
    expect(reply.error.message).toMatch(/^Invalid arguments for addServer: /);
    expect(reply.error.issues).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'name must not be empty' },
        { path: 'target.command', message: 'command must not be empty' },
      ]),
    );
    expect(addServer).not.toHaveBeenCalled();
  });

  it('rejects wrong types, unknown fields and unknown discriminants', async () => {
    const dispatch = createDispatcher(handlers());
    const cases: unknown[] = [
      null,
      'a string',
      { name: 'x', target: { type: 'ftp', url: 'ftp://x' } },
      { name: 'x', target: { type: 'stdio', command: 'node' }, extra: true },
      { name: 42, target: { type: 'stdio', command: 'node' } },
    ];
    for (const args of cases) {
      const reply = await dispatch('addServer', args);
      expect(reply.ok, JSON.stringify(args)).toBe(false);
      if (!reply.ok) expect(reply.error.code).toBe('invalid-arguments');
    }
  });

  it('rejects unknown methods, including prototype names', async () => {
    const dispatch = createDispatcher(handlers());
    for (const name of ['nope', '__proto__', 'constructor', 'toString']) {
      const reply = await dispatch(name, {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
    }
  });

  it('applies defaults and passes validated arguments to the handler', async () => {
    const addServer = vi.fn(async (args) => ({ ...args, id: 'x' }) as never);
    const dispatch = createDispatcher(handlers({ addServer }));
    await dispatch('addServer', { name: 'fs', target: { type: 'stdio', command: 'node' } });
    expect(addServer).toHaveBeenCalledWith(
      expect.objectContaining({
        name: 'fs',
        era: 'auto',
        target: { type: 'stdio', command: 'node', args: [], env: {}, nonSecretEnv: [] },
        requestTimeoutSec: 60,
        connectTimeoutSec: 30,
        retries: 3,
        pingIntervalSec: 30,
        disabled: false,
      }),
    );
  });

  it('turns handler failures into error envelopes', async () => {
    const onUnexpected = vi.fn();
    const dispatch = createDispatcher(
      handlers({
        removeServer: async () => {
          throw new CoreError('not-found', 'No server with id "a".');
        },
        listServers: async () => {
          throw new TypeError('boom');
        },
      }),
      onUnexpected,
    );
    expect(await dispatch('removeServer', { id: 'a' })).toEqual({ ok: false, error: { code: 'not-found', message: 'No server with id "a".' } });
    expect(await dispatch('listServers', {})).toEqual({ ok: false, error: { code: 'failed', message: 'boom' } });
    expect(onUnexpected).toHaveBeenCalledTimes(1);
  });
});
