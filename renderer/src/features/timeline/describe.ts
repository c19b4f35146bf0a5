/** What the hover card says about a span or tick: plain text, server-supplied parts clipped and stripped of bidi overrides. */
import { appOf } from '../../components/app-tool';
import type { TraceEvent } from '../../../../contract/trace';
import type { Hit } from './draw';
import type { Span } from './model';
import { clockLabel, formatDuration } from './scale';

const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

export function clip(text: string, max = 160): string {
  const clean = text.replace(BIDI, '');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function spanStatus(span: Span, openEnd: number): string {
  switch (span.status) {
    case 'pending':
      return span.type === 'rpc' ? `waiting for ${formatDuration(openEnd - span.start)}` : span.stream ? 'stream open' : 'in progress';
    case 'ok':
      if (span.type === 'exchange') return `HTTP ${span.httpStatus ?? '—'}${span.detail ? ` · ${span.detail}` : ''}`;
      if (span.type === 'process') return span.detail ?? 'exited';
      return 'result';
    case 'error':
      if (span.type === 'exchange') return `error · HTTP ${span.httpStatus ?? '—'}${span.detail ? ` · ${clip(span.detail, 120)}` : ''}`;
      return `error ${clip(span.detail ?? '', 140)}`.trim();
    case 'tool-error':
      return 'tool error (isError: true)';
    case 'abandoned':
      return 'abandoned (no answer before disconnect)';
    case 'cancelled':
      return 'cancelled';
  }
}

/** For a bridge message: the app it belongs to (its tool, else its resource uri). */
function appLine(event: TraceEvent): [string, string][] {
  const app = appOf(event);
  return app ? [['app', clip(app.tool ?? app.uri ?? 'unknown', 120)]] : [];
}

export function describeHit(hit: Hit, names: Map<string, string>, openEnd: number): { title: string; lines: [string, string][] } {
  if (hit.kind === 'span') {
    const span = hit.span;
    const server = names.get(span.startEvent.server) ?? span.startEvent.server;
    const end = span.open ? openEnd : span.end;
    const lines: [string, string][] = [
      ['duration', `${formatDuration(end - span.start)}${span.open ? ' so far' : ''}`],
      ['status', spanStatus(span, openEnd)],
      ['server', clip(server, 80)],
      ['channel', span.startEvent.channel],
      ...appLine(span.startEvent),
      ['started', clockLabel(span.start, true)],
    ];
    if (span.type === 'rpc' && span.startEvent.rpc?.id !== undefined) lines.push(['id', clip(String(span.startEvent.rpc.id), 60)]);
    if (span.type === 'exchange' && span.events) lines.push(['events', span.events.toLocaleString('en-US')]);
    lines.push(['seq', `#${span.seq}`]);
    const title = span.type === 'rpc' ? `${hit.lane.kind === 'rpc-in' ? '← ' : '→ '}${clip(span.label, 120)}` : clip(span.label, 120);
    return { title, lines };
  }
  const { tick } = hit;
  const event = tick.event;
  const rpc = tick.rpc ?? event.rpc;
  const server = names.get(event.server) ?? event.server;
  const lines: [string, string][] = [
    ['kind', `${event.kind}${event.dir !== 'none' ? ` (${event.dir === 'out' ? 'sent' : 'received'})` : ''}`],
    ['server', clip(server, 80)],
    ['channel', event.channel],
    ...appLine(event),
    ['time', clockLabel(event.ts, true)],
  ];
  if (rpc?.kind === 'error') lines.push(['status', `error ${rpc.errorCode ?? ''} ${clip(rpc.errorMessage ?? '', 120)}`.trim()]);
  if (event.http?.status !== undefined) lines.push(['status', `HTTP ${event.http.status}${event.http.statusText ? ` ${clip(event.http.statusText, 60)}` : ''}`]);
  if (event.text) lines.push(['text', clip(event.text, 200)]);
  if (event.sse?.id) lines.push(['SSE id', clip(event.sse.id, 80)]);
  lines.push(['seq', `#${event.seq}`]);
  const title = rpc?.method ? clip(rpc.method, 120) : rpc ? `${rpc.kind}${rpc.id !== undefined ? ` #${clip(String(rpc.id), 40)}` : ''}` : event.kind;
  return { title, lines };
}
