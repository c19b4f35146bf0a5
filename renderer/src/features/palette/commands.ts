/**
 * The palette's commands (beside views, servers and tools): what each is called, what it says
 * it does, and the words it is found by. Pure data; CommandPalette gives each its action.
 */
export const COMMANDS = [
  { id: 'theme', label: 'Toggle theme (light / dark)', description: 'switches between the light and the dark theme', keywords: ['theme', 'dark', 'light', 'colour', 'color', 'appearance'] },
  { id: 'connect-all', label: 'Connect all servers', description: 'every enabled server that is not connected', keywords: ['connect all', 'reconnect', 'servers'] },
  { id: 'disconnect-all', label: 'Disconnect all servers', description: 'none of them reconnects at the next start', keywords: ['disconnect all', 'stop', 'servers'] },
  { id: 'open-trace', label: 'Open trace (Traffic)', description: 'every message to and from the servers', keywords: ['trace', 'traffic', 'messages', 'network', 'log'] },
  { id: 'export-jsonl', label: 'Export trace as JSONL', description: 'the whole trace, secrets redacted, re-importable', keywords: ['export', 'download', 'save', 'trace', 'jsonl'] },
  { id: 'export-har', label: 'Export trace as HAR', description: 'HTTP exchanges and SSE messages, secrets redacted', keywords: ['export', 'download', 'save', 'har', 'http'] },
  { id: 'export-otlp', label: 'Export trace as OTLP', description: 'OpenTelemetry traces (OTLP JSON): a span per request, secrets redacted', keywords: ['export', 'download', 'otlp', 'opentelemetry', 'otel', 'spans', 'jaeger', 'tempo'] },
  { id: 'send-otlp', label: 'Send trace to an OpenTelemetry collector…', description: 'OTLP/HTTP, with headers for auth', keywords: ['send', 'otlp', 'opentelemetry', 'otel', 'collector', 'jaeger', 'tempo'] },
  { id: 'import-trace', label: 'Import a trace file…', description: 'opens a JSONL trace read-only', keywords: ['import', 'open', 'load', 'trace', 'file', 'jsonl'] },
  { id: 'back-to-live', label: 'Back to live', description: 'leaves the imported trace for the live one', keywords: ['live', 'imported', 'trace'] },
  { id: 'settings', label: 'Settings…', description: 'theme, remembered arguments, sign-in', keywords: ['settings', 'preferences', 'options', 'configuration'] },
] as const;

export type CommandId = (typeof COMMANDS)[number]['id'];

/** The light/dark scheme a toggle goes to from what is on screen (an OS-followed scheme counts as what it shows). */
export function flippedScheme(onScreen: 'light' | 'dark'): 'light' | 'dark' {
  return onScreen === 'dark' ? 'light' : 'dark';
}
