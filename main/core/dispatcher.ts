/**
 * The single dispatcher behind both carriers. It validates arguments against the contract,
 * calls the core handler, and turns every outcome into an envelope. It knows nothing about
 * Electron or WebSockets: a carrier hands it a method name and raw arguments.
 */
import type { z } from 'zod';
import { LIMITS, depthOf } from '../../contract/bounded-json';
import {
  METHOD_NAMES,
  methods,
  type Args,
  type ContractErrorShape,
  type Envelope,
  type MethodName,
  type Result,
} from '../../contract';

export type Handlers = { [M in MethodName]: (args: Args<M>) => Promise<Result<M>> };

/** Thrown by handlers for errors the user should read as they are. */
export class CoreError extends Error {
  constructor(
    readonly code: ContractErrorShape['code'],
    message: string,
  ) {
    super(message);
    this.name = 'CoreError';
  }
}

export type Dispatch = (method: string, rawArgs: unknown) => Promise<Envelope>;

export function isMethodName(name: string): name is MethodName {
  return (METHOD_NAMES as readonly string[]).includes(name);
}

export function formatIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(arguments)',
    message: issue.message,
  }));
}

export function createDispatcher(handlers: Handlers, onUnexpected?: (method: string, error: unknown) => void): Dispatch {
  return async (method, rawArgs) => {
    if (!isMethodName(method)) {
      return fail({ code: 'unknown-method', message: `Unknown method "${String(method).slice(0, 80)}"` });
    }
    const tooDeep = argumentDepthError(rawArgs);
    if (tooDeep) return fail({ code: 'invalid-arguments', message: `Invalid arguments for ${method}: ${tooDeep}` });
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
      if (error instanceof CoreError) return fail({ code: error.code, message: error.message });
      onUnexpected?.(method, error);
      return fail({ code: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };
}

/**
 * Levels a method's own envelope adds around what a person wrote: callTool's `args` sits inside
 * `{ tool, args }`, a saved call's one level further down.
 */
const ENVELOPE_LEVELS = 3;

/** Arguments nested past what the SDK (and zod) can walk are refused before anything walks them. */
function argumentDepthError(rawArgs: unknown): string | undefined {
  const limit = LIMITS.argumentDepth + ENVELOPE_LEVELS;
  const depth = depthOf(rawArgs, limit);
  if (depth <= limit) return undefined;
  // Counted below the method's own arguments object, as a person sees what they wrote.
  const nested = depthOf(rawArgs) - 1;
  return `arguments are nested ${nested.toLocaleString('en-US')} levels deep; Switchboard sends at most ${LIMITS.argumentDepth}`;
}

function fail(error: ContractErrorShape): Envelope {
  return { ok: false, error };
}
