/**
 * The proxy with a published MCP client (#12): the official Inspector's CLI mode
 * (`@modelcontextprotocol/inspector-cli` 1.0.3, `--cli … --method M`, one process and one
 * connection per method) through the real `switchboard proxy` (stdio and HTTP) to the published
 * server-everything (stdio, Streamable HTTP, legacy SSE) and our everything fixture in the
 * 2025-11-25 era. What it printed must be the same with and without the proxy, and every proxy
 * recording must name it (`inspector-cli`, from its clientInfo) and hold the exchange.
 */
import { describe, it } from 'vitest';
import { expectCell, runCell, useField, type FieldServers } from '../support/proxy-field';

const state = useField();

type ServerKey = keyof FieldServers['servers'];

describe('the Inspector CLI through the proxy', () => {
  for (const key of ['everythingStdio', 'everythingHttp', 'everythingSse', 'fixtureStdio', 'fixtureHttp'] as ServerKey[]) {
    it(`inspector-cli × ${key}: the same output through the proxy, recorded with its name`, async () => {
      const server = state.field.servers[key];
      // tools/list, the echo call and a resource read (each one CLI process; the prompt is left to the SDK cells).
      const outcome = await runCell('inspector-cli', server, state.root, server.plan.slice(0, 3));
      expectCell('inspector-cli', server, outcome);
    }, 180_000);
  }
  // The Inspector CLI 1.0.3 is built on the SDK 1.x client: protocol versions up to 2025-11-25.
  it.skip('inspector-cli × the fixture in the 2026-07-28 era: the CLI does not speak it', () => {});
});
