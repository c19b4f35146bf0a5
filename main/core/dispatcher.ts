/**
 * The single dispatcher behind both carriers. It validates arguments against the contract,
 * calls the core handler, and turns every outcome into an envelope. It knows nothing about
 * Electron or WebSockets: a carrier hands it a method name and raw arguments.
 */
import {
  METHOD_NAMES,
  methods,
  type Args,
  type ContractErrorShape,
  type Envelope,
  type MethodName,
  type Result,
} from '../../contract';
import { CoreError, formatIssues } from './errors';

// Where they lived before main/core/errors.ts; lower layers import them from there.
export { CoreError, formatIssues };

export type Handlers = { [M in MethodName]: (args: Args<M>) => Promise<Result<M>> };

export type Dispatch = (method: string, rawArgs: unknown) => Promise<Envelope>;

export function isMethodName(name: string): name is MethodName {
  return (METHOD_NAMES as readonly string[]).includes(name);
}

export function createDispatcher(handlers: Handlers, onUnexpected?: (method: string, error: unknown) => void): Dispatch {
  return async (method, rawArgs) => {
    if (!isMethodName(method)) {
      return fail({ code: 'unknown-method', message: `Unknown method "${String(method).slice(0, 80)}"` });
    }
    const parsed = methods[method].args.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      const issues = formatIssues(parsed.error);
      const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
      return fail({ code: 'invalid-arguments', message: `Invalid arguments for ${method}: ${summary}`, issues });
    }
    try {
      const handler = handlers[method] as (args: unknown) => Promise<unknown>;
      return { ok: true, result: await handler(parsed.data) };
    } catch (error) {
      if (error instanceof CoreError) return fail({ code: error.code, message: error.message, ...(error.detail ? { detail: error.detail } : {}) });
      onUnexpected?.(method, error);
      return fail({ code: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };
}

function fail(error: ContractErrorShape): Envelope {
  return { ok: false, error };
}
