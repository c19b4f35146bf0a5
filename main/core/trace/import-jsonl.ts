/**
 * Reads a JSONL trace back for offline viewing: the header and the events, validated line by
 * line. Broken lines are reported with their line numbers; the rest still loads.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { ServerConfig } from '../../../contract';
import { CHANNELS, EVENT_KINDS, type TraceEvent } from '../../../contract/trace';
import { TRACE_FORMAT, type TraceHeader } from './export-jsonl';

const HeaderSchema = z.object({
  format: z.literal(TRACE_FORMAT),
  version: z.number().int().min(1),
  app: z.object({ name: z.string(), version: z.string() }),
  startedAt: z.string(),
  exportedAt: z.string(),
  eventCount: z.number().int().min(0),
  servers: z.array(ServerConfig),
  redaction: z.literal('on'),
});

const EventSchema = z
  .object({
    seq: z.number().int().min(1),
    ts: z.number(),
    server: z.string(),
    channel: z.enum(CHANNELS),
    kind: z.enum(EVENT_KINDS),
    dir: z.enum(['out', 'in', 'none']),
  })
  .passthrough();

export interface ImportedTrace {
  header: TraceHeader;
  events: TraceEvent[];
  problems: { line: number; message: string }[];
}

export async function readJsonlTrace(path: string, onEvent?: (event: TraceEvent) => void): Promise<ImportedTrace> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  return parseJsonlTrace(lines, path, onEvent);
}

/** The same from lines already in hand (an upload in the UI). */
export async function parseJsonlTrace(lines: AsyncIterable<string> | Iterable<string>, path: string, onEvent?: (event: TraceEvent) => void): Promise<ImportedTrace> {
  let header: TraceHeader | undefined;
  const events: TraceEvent[] = [];
  const problems: ImportedTrace['problems'] = [];
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push({ line: lineNo, message: 'not JSON' });
      continue;
    }
    if (!header) {
      const parsed = HeaderSchema.safeParse(value);
      if (!parsed.success) {
        throw new Error(`${path}: line 1 is not a Switchboard trace header (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
      }
      if (parsed.data.version > 1) throw new Error(`${path}: trace format version ${parsed.data.version} is newer than this Switchboard understands (1).`);
      header = parsed.data as TraceHeader;
      continue;
    }
    const parsed = EventSchema.safeParse(value);
    if (!parsed.success) {
      problems.push({ line: lineNo, message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      continue;
    }
    const event = parsed.data as TraceEvent;
    events.push(event);
    onEvent?.(event);
  }
  if (!header) throw new Error(`${path}: empty file, not a Switchboard trace.`);
  return { header, events, problems };
}
