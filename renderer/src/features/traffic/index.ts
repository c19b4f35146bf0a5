/** What other views use from Traffic: its formatters, the servers of imported traces, trace files, and a body as it came. */
export { bodyText, formatBytes, formatMs, formatTime } from './format';
export { rawBodyText } from './raw-body';
export { exportTraceFile, pickAndImportTrace } from './trace-files';
export { importedServers } from './traffic-store';
