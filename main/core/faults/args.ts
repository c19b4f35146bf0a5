/**
 * The command-line form of a fault (`--fault F`, the lab's and the proxy's): JSON
 * (`{"type":"latency","ms":500}`) or the shorthand `type[:key=value,...]`, e.g.
 * `http-error:status=503,retryAfter=5,times=2`, `latency:ms=300,method=tools/call|tools/list`,
 * `drop-notifications:notification=notifications/progress,rate=0.5`.
 * Values: `true`/`false` → boolean, numbers → number, `a|b` → array (for `method` and
 * `notification`), else string.
 */
import { FaultSpecError, parseFault, type Fault } from './engine';

/** Longest `--fault` argument read (docs/limits.md). */
export const MAX_FAULT_ARG = 100_000;

const LIST_KEYS = new Set(['method', 'notification']);

export function parseFaultArg(arg: string): Fault {
  if (arg.length > MAX_FAULT_ARG) throw new FaultSpecError(`--fault: longer than ${MAX_FAULT_ARG} characters`);
  const trimmed = arg.trim();
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      throw new FaultSpecError(`--fault: invalid JSON: ${(error as Error).message}`);
    }
    return parseFault(json);
  }
  const colon = trimmed.indexOf(':');
  const type = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const spec: Record<string, unknown> = { type };
  if (colon !== -1) {
    for (const pair of trimmed.slice(colon + 1).split(',')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      if (eq === -1) throw new FaultSpecError(`--fault ${arg}: expected key=value, got "${pair}"`);
      const key = pair.slice(0, eq);
      const raw = pair.slice(eq + 1);
      if (key === '' || key === 'type' || key === '__proto__') throw new FaultSpecError(`--fault ${arg}: bad key "${key}"`);
      let value: unknown = raw;
      if (raw === 'true' || raw === 'false') value = raw === 'true';
      else if (/^-?\d+(\.\d+)?$/.test(raw)) value = Number(raw);
      else if (LIST_KEYS.has(key) && raw.includes('|')) value = raw.split('|');
      spec[key] = value;
    }
  }
  return parseFault(spec, `--fault ${type}`);
}
