#!/usr/bin/env node
/**
 * The client under test for the official conformance suite's client scenarios: Switchboard's
 * shipped CLI (out/main/cli.js), nothing else. The suite runs `node test/conformance/client.mjs
 * <server URL>` with MCP_CONFORMANCE_SCENARIO (and, for some, MCP_CONFORMANCE_CONTEXT) set; this
 * file only chooses which real CLI command and flags a scenario is — it speaks no protocol itself.
 * Every invocation gets a fresh --data-dir, so no sign-in carries over between scenarios.
 *
 * SWITCHBOARD_CONFORMANCE_BREAK=WORD,WORD… (tests only) drops those words (flags, values) from
 * the mapping, to prove a scenario fails through the suite when the CLI is not driven right.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(root, 'out', 'main', 'cli.js');
/** The client id the suite's auth/basic-cimd authorization server expects. */
export const CONFORMANCE_CIMD_URL = 'https://conformance-test.local/client-metadata.json';

/** Each scenario's CLI invocations (argument lists after `switchboard`), in order. */
export function invocations(scenario, url, context = {}) {
  const auth = ['--oauth-headless'];
  const client = context.client_id ? ['--client-id', String(context.client_id), ...(context.client_secret ? ['--client-secret', String(context.client_secret)] : [])] : [];
  switch (scenario) {
    case 'initialize':
      return [['tools', '--url', url]];
    case 'tools_call':
      return [['call', 'add_numbers', '--args', '{"a":2,"b":3}', '--url', url]];
    case 'elicitation-sep1034-client-defaults':
      return [['call', 'test_client_elicitation_defaults', '--elicitation', 'accept-defaults', '--url', url]];
    case 'sse-retry':
      return [['call', 'test_reconnection', '--url', url]];
    case 'auth/basic-cimd':
      // The suite's authorization server expects exactly its own document URL as the client id
      // (it fetches nothing: the run is offline); without the flag the CLI registers dynamically,
      // since that server offers registration too (test/integration/conformance-client.test.ts).
      return [['call', 'test-tool', '--url', url, ...auth, '--client-metadata-url', CONFORMANCE_CIMD_URL]];
    default:
      if (scenario?.startsWith('auth/')) return [['call', 'test-tool', '--url', url, ...auth, ...client]];
      return undefined;
  }
}

function main() {
  const url = process.argv[process.argv.length - 1];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  let context = {};
  if (process.env.MCP_CONFORMANCE_CONTEXT) context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);
  const runs = invocations(scenario, url, context);
  if (!runs) {
    process.stderr.write(`client.mjs: no mapping for scenario "${scenario}"\n`);
    process.exit(2);
  }
  const broken = new Set((process.env.SWITCHBOARD_CONFORMANCE_BREAK ?? '').split(',').filter(Boolean));
  for (const args of runs) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-conformance-'));
    let argv = [CLI, ...args, '--data-dir', dataDir];
    if (broken.size) argv = argv.filter((word) => !broken.has(word));
    const result = spawnSync(process.execPath, argv, { stdio: 'inherit' });
    rmSync(dataDir, { recursive: true, force: true });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
