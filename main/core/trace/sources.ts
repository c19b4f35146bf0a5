/**
 * The trace sources open besides the live one: files opened read-only (`import-N`) and
 * recordings of the library (`rec-ID`). Every trace handler reads its `source` through this.
 */
import type { ServerConfig } from '../../../contract';
import { CoreError } from '../errors';
import type { TraceHub } from './hub';

export interface OpenedTrace {
  hub: TraceHub;
  /** What the person opened: the file's name, or the recording's. */
  name: string;
  app: { name: string; version: string };
  startedAt: number;
  servers: { id: string; name: string }[];
  /** The header's server configurations (secrets already removed), for a re-export. */
  configs: ServerConfig[];
}

export class TraceSources {
  private readonly opened = new Map<string, OpenedTrace>();

  get(source: string): OpenedTrace | undefined {
    return this.opened.get(source);
  }

  /** The open source, or `CoreError('not-found')` saying what to do (a recording opens from the library). */
  require(source: string): OpenedTrace {
    const trace = this.opened.get(source);
    if (trace) return trace;
    throw new CoreError('not-found', source.startsWith('rec-') ? `Recording "${source.slice(4)}" is not open (open it from the library).` : `No imported trace "${source}" (it may have been closed).`);
  }

  /** Registers a source (closing whatever was open under that name before). */
  set(source: string, trace: OpenedTrace): void {
    const before = this.opened.get(source);
    if (before && before.hub !== trace.hub) before.hub.close();
    this.opened.set(source, trace);
  }

  /** Closes and forgets one; false when it was not open. */
  close(source: string): boolean {
    const trace = this.opened.get(source);
    if (!trace) return false;
    trace.hub.close();
    this.opened.delete(source);
    return true;
  }

  keys(): string[] {
    return [...this.opened.keys()];
  }

  closeAll(): void {
    for (const trace of this.opened.values()) trace.hub.close();
    this.opened.clear();
  }
}
