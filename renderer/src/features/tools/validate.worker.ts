/**
 * Validates JSON against a JSON Schema off the main thread, with @cfworker/json-schema (no eval,
 * so it runs under the renderer's CSP). Server schemas are untrusted: a catastrophic `pattern`
 * can backtrack for minutes, so this runs in a worker the page terminates when it takes too long.
 */
import { Validator } from '@cfworker/json-schema';
import type { ValidateRequest, ValidateReply } from './validation';

const scope = self as unknown as { onmessage: ((event: MessageEvent<ValidateRequest>) => void) | null; postMessage(message: ValidateReply): void };

scope.onmessage = (event) => {
  const { id, schema, draft, instance } = event.data;
  try {
    const result = new Validator(schema as never, draft, false).validate(instance);
    scope.postMessage({ id, ok: true, errors: result.valid ? [] : result.errors.map((e) => ({ instanceLocation: e.instanceLocation, keyword: e.keyword, error: e.error })) });
  } catch (error) {
    scope.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
};
