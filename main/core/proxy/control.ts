/**
 * The app ↔ proxy channel (#12): two small JSON files in the proxy's recording directory, which
 * only this user can read (0700). Neither side depends on the other: a proxy without an app never
 * sees a request; an app without a proxy sees the last state it wrote.
 *
 *   faults-request.json  written by the app: the faults it wants (`seq` grows with each write)
 *   faults-state.json    written by the proxy: the faults in force, with their counts, and the
 *                        last request `seq` it applied (or refused, with why)
 *
 * Both are written atomically (a temp file, then a rename) and read with a size bound.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ArmedFault, FaultSchema } from '../../../contract/faults';

export const FAULTS_REQUEST_FILE = 'faults-request.json';
export const FAULTS_STATE_FILE = 'faults-state.json';
const MAX_BYTES = 1024 * 1024;

export const FaultsRequest = z.object({ seq: z.number().int().min(1), faults: z.array(FaultSchema).max(50), at: z.number() });
export type FaultsRequest = z.output<typeof FaultsRequest>;

export const FaultsState = z.object({
  /** The last request applied (0: only the flags' faults). */
  seq: z.number().int().min(0),
  armed: z.array(ArmedFault),
  at: z.number(),
  /** The last request could not be applied (a fault this transport cannot act on, say). */
  refused: z.string().max(2000).optional(),
});
export type FaultsState = z.output<typeof FaultsState>;

function writeAtomic(path: string, value: unknown): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(value) + '\n', { mode: 0o600 });
  renameSync(temp, path);
}

function readBounded<T>(path: string, schema: z.ZodType<T>): T | undefined {
  try {
    if (statSync(path).size > MAX_BYTES) return undefined;
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** App side: ask a proxy for these faults. Returns the request's seq. */
export function writeFaultsRequest(recordingDir: string, faults: z.input<typeof FaultSchema>[]): number {
  const previous = readFaultsRequest(recordingDir);
  const seq = (previous?.seq ?? 0) + 1;
  writeAtomic(join(recordingDir, FAULTS_REQUEST_FILE), { seq, faults: faults.map((f) => FaultSchema.parse(f)), at: Date.now() });
  return seq;
}

export function readFaultsRequest(recordingDir: string): FaultsRequest | undefined {
  return readBounded(join(recordingDir, FAULTS_REQUEST_FILE), FaultsRequest);
}

/** Proxy side: what is in force now. */
export function writeFaultsState(recordingDir: string, state: FaultsState): void {
  writeAtomic(join(recordingDir, FAULTS_STATE_FILE), state);
}

export function readFaultsState(recordingDir: string): FaultsState | undefined {
  return readBounded(join(recordingDir, FAULTS_STATE_FILE), FaultsState);
}

/** The request file's modification time (ms), to poll cheaply; undefined when absent. */
export function faultsRequestStamp(recordingDir: string): number | undefined {
  try {
    return statSync(join(recordingDir, FAULTS_REQUEST_FILE)).mtimeMs;
  } catch {
    return undefined;
  }
}
