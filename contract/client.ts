/**
 * A typed client over any carrier. The preload builds one over Electron IPC, the renderer
 * builds one over the browser mode's WebSocket; both expose one named function per method.
 */
import {
  EVENT_NAMES,
  METHOD_NAMES,
  type EventName,
  type MethodName,
} from './names';
import type { ArgsIn, ContractErrorShape, Envelope, EventPayload, Result } from './index';

export interface Carrier {
  invoke(method: MethodName, args: unknown): Promise<Envelope>;
  subscribe(event: EventName, listener: (payload: unknown) => void): () => void;
}

export type SwitchboardApi = {
  [M in MethodName]: Record<never, never> extends ArgsIn<M>
    ? (args?: ArgsIn<M>) => Promise<Result<M>>
    : (args: ArgsIn<M>) => Promise<Result<M>>;
} & {
  /** Subscribe to an event; returns the function that unsubscribes. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

export class ContractError extends Error implements ContractErrorShape {
  readonly code: ContractErrorShape['code'];
  readonly issues: ContractErrorShape['issues'];
  /** The facts behind the message (JSON-RPC code, HTTP status, trace seqs…): read these, never the message. */
  readonly detail: ContractErrorShape['detail'];
  constructor(shape: ContractErrorShape) {
    super(shape.message);
    this.name = 'ContractError';
    this.code = shape.code;
    this.issues = shape.issues;
    this.detail = shape.detail;
  }
}

/** The detail of an error a contract call threw (undefined for anything else). */
export function errorDetailOf(error: unknown): ContractErrorShape['detail'] {
  return error instanceof ContractError ? error.detail : undefined;
}

export function createApi(carrier: Carrier): SwitchboardApi {
  const api: Record<string, unknown> = {};
  for (const method of METHOD_NAMES) {
    api[method] = async (args?: unknown) => {
      const reply = await carrier.invoke(method, args ?? {});
      if (!reply.ok) throw new ContractError(reply.error);
      return reply.result;
    };
  }
  api.on = (event: EventName, listener: (payload: unknown) => void) => {
    if (!(EVENT_NAMES as readonly string[]).includes(event)) throw new Error(`Unknown event: ${String(event)}`);
    return carrier.subscribe(event, listener);
  };
  return api as SwitchboardApi;
}
