/**
 * Faults (#12): one implementation shared by the fault lab (test/fixtures/flaky-server) and the
 * recording proxy. The schemas are in contract/faults.ts.
 *
 *   engine.ts  FaultEngine: the armed faults, scope matching (method, http, after, times, rate), counts;
 *              parseFault / parseFaultsBody / checkSupported / describeRequest / describeMessage
 *   args.ts    parseFaultArg: the `--fault` flag (JSON or `type:key=value,…`)
 *   http.ts    serveWithFaults: a plan applied to a Node HTTP response around a `route(Request) → Response`;
 *              SessionExpiry (the proxy's session-expiry); readBody / toWebRequest / forwardableHeaders
 *   stdio.ts   createStdioFaults: faults on JSON-RPC lines (latency, stall, drop-notifications, jsonrpc-error)
 */
export * from './engine';
export * from './args';
export * from './http';
export * from './stdio';
