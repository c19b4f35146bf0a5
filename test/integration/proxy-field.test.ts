/**
 * The proxy against clients and servers nobody here wrote (#12): the SDK's own clients (1.x and
 * 2.x) through the real `switchboard proxy` (a separate process, built CLI) to the published
 * server-everything over stdio, Streamable HTTP and legacy SSE, and to our everything fixture in
 * both eras (stdio and HTTP). Each cell runs the client directly, then through the proxy: what
 * the client got must be the same, and the proxy's recording in the library must be a `proxy`
 * recording naming the client from its clientInfo, with the exchange in its events.
 *
 * The Inspector CLI's cells are in proxy-field-inspector.test.ts (one process per method: slow).
 */
import { describe, it } from 'vitest';
import type { FieldClient } from '../support/proxy-clients';
import { expectCell, runCell, useField, type FieldServers } from '../support/proxy-field';

const state = useField();

type ServerKey = keyof FieldServers['servers'];
const LEGACY_CELLS: ServerKey[] = ['everythingStdio', 'everythingHttp', 'everythingSse', 'fixtureStdio', 'fixtureHttp'];
const MODERN_CELLS: ServerKey[] = ['fixtureStdioModern', 'fixtureHttpModern'];

function cells(client: FieldClient, keys: ServerKey[]): void {
  for (const key of keys) {
    it(`${client} × ${key}: the same answers through the proxy, recorded with the client's name`, async () => {
      const server = state.field.servers[key];
      expectCell(client, server, await runCell(client, server, state.root));
    }, 120_000);
  }
}

describe('SDK 1.x client (@modelcontextprotocol/sdk) through the proxy', () => {
  cells('sdk-v1', LEGACY_CELLS);
  // The 1.x client speaks protocol versions up to 2025-11-25 only (no server/discover): the
  // 2026-07-28 era is not a version it can ask for.
  for (const key of MODERN_CELLS) it.skip(`sdk-v1 × ${key}: the 1.x client does not speak 2026-07-28`, () => {});
});

describe('SDK 2.x client (@modelcontextprotocol/client) through the proxy', () => {
  cells('sdk-v2', LEGACY_CELLS);
  cells('sdk-v2-modern', MODERN_CELLS);
});
