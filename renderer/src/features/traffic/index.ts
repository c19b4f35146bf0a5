/** What other views use from Traffic: the servers of imported traces and trace files. */
export { TRACE_FILE_ACCEPT, exportTraceFile, importRecordingFile, pickAndImportTrace } from './trace-files';
export { importedServers } from './traffic-store';
