/**
 * `switchboard capture` as a person runs it (the built CLI, a real process) against a fake HOME
 * holding a Claude-Desktop-style config (stdio + HTTP entries) and a VS Code JSONC config (line
 * and block comments, trailing commas), plus a broken Cursor config. The captured stdio entry's
 * rewritten command line is run by a real client (SDK v1) through `switchboard proxy` to our
 * everything fixture: it works, and the proxy records into the library under --data-dir.
 * Restore gives every byte back; capturing twice does not wrap twice; the broken config is
 * refused (exit 5) and left alone.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureConfig, CaptureResult } from '../../contract/proxy';
import { RecordingLibrary } from '../../main/core/recordings/library';
import { stdioFixtureCommand } from '../fixtures/everything/harness';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/switchboard.mjs');
const SECRET = 'sk-capture-env-secret-4f1e9a';

let dir: string;
let home: string;
let project: string;
let data: string;
let claudePath: string;
let vscodePath: string;
let cursorPath: string;
let claudeText: string;
let vscodeText: string;
const cursorText = '{ "mcpServers": { "x": { "command": "srv" }\n';

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: undefined, APPDATA: undefined };
    execFile(process.execPath, [BIN, 'capture', '--home', home, '--cwd', project, '--data-dir', data, ...args], { cwd: project, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-capture-cli-'));
  home = join(dir, 'home');
  project = join(dir, 'project');
  data = join(dir, 'data');
  mkdirSync(project, { recursive: true });
  const fixture = stdioFixtureCommand();
  claudeText = `{
  "mcpServers": {
    "everything": {
      "command": ${JSON.stringify(fixture.command)},
      "args": ${JSON.stringify(fixture.args)},
      "env": { "FIXTURE_TOKEN": "${SECRET}" }
    },
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp" }
  }
}
`;
  vscodeText = `// my servers
{
  "servers": {
    /* the filesystem */
    "fs": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"], // roots
    },
    "legacy": { "type": "sse", "url": "http://localhost:3001/sse", },
  },
}
`;
  claudePath = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  vscodePath = join(home, '.config', 'Code', 'User', 'mcp.json');
  cursorPath = join(home, '.cursor', 'mcp.json');
  for (const [path, text] of [
    [claudePath, claudeText],
    [vscodePath, vscodeText],
    [cursorPath, cursorText],
  ] as const) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('switchboard capture (CLI, fake HOME)', () => {
  it('lists the configs found, with their entries, without secrets; a broken config says where it breaks', async () => {
    const { code, stdout } = await cli(['--list', '--json']);
    expect(code).toBe(0);
    const configs = JSON.parse(stdout) as CaptureConfig[];
    const claude = configs.find((c) => c.client === 'Claude Desktop')!;
    expect(claude).toMatchObject({ path: claudePath, exists: true, format: 'json' });
    expect(claude.entries.map((e) => [e.name, e.transport, e.captured])).toEqual([
      ['everything', 'stdio', false],
      ['memory', 'stdio', false],
      ['remote', 'http', false],
    ]);
    expect(configs.find((c) => c.client === 'VS Code (user)')).toMatchObject({ path: vscodePath, format: 'jsonc' });
    expect(configs.find((c) => c.client === 'Cursor')!.error).toMatch(/cannot be parsed: .* at line \d+, column \d+\. It was left alone/);
    expect(configs.find((c) => c.client === 'Windsurf')).toMatchObject({ exists: false });
    expect(stdout).not.toContain(SECRET);

    const text = await cli([]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Claude Desktop  ${claudePath}`);
    expect(text.stdout).toMatch(/\[ {8}\] memory {2}stdio {2}npx -y @modelcontextprotocol\/server-memory/);
    expect(text.stdout).toContain('(env: FIXTURE_TOKEN)');
    expect(text.stdout).not.toContain(SECRET);
  });

  it('captures chosen entries; the rewritten stdio entry runs a real client through the proxy; capturing again changes nothing', async () => {
    const { code, stdout, stderr } = await cli(['--client', 'Claude Desktop', '--server', 'everything', '--server', 'remote']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Captured 2 entries');
    expect(stdout).toMatch(/run for remote:\n {4}\S+ \S+switchboard\.mjs proxy --name remote --upstream https:\/\/mcp\.example\.com\/mcp --port \d+ --data-dir /);

    const doc = JSON.parse(readFileSync(claudePath, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string>; url?: string }> };
    const entry = doc.mcpServers.everything!;
    const fixture = stdioFixtureCommand();
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([BIN, 'proxy', '--name', 'everything', '--data-dir', data, '--', fixture.command, ...fixture.args]);
    expect(entry.env).toEqual({ FIXTURE_TOKEN: SECRET });
    expect(doc.mcpServers.memory).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
    expect(doc.mcpServers.remote!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    // What Claude Desktop would do: launch the entry's command line, with its env, and talk MCP over stdio.
    const client = new Client({ name: 'capture-test-client', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...(process.env as Record<string, string>), ...entry.env }, stderr: 'pipe' });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'through the proxy' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'echo: through the proxy' }]);
    await client.close();

    // The proxy recorded the session into the library the app watches (same --data-dir).
    const library = new RecordingLibrary({ dir: join(data, 'recordings') });
    await expect.poll(() => library.list().filter((r) => r.kind === 'proxy' && !r.live).length, { timeout: 10_000 }).toBe(1);
    const recording = library.list().find((r) => r.kind === 'proxy')!;
    expect(recording.proxy).toMatchObject({ transport: 'stdio', client: { name: 'capture-test-client' } });
    expect(recording.name).toContain('everything');
    // The env value the client passed (a secret) reached neither the recording nor the backup listing.
    const onDisk = readdirSync(join(data, 'recordings'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
      .join('\n');
    expect(onDisk).toContain('through the proxy');
    expect(onDisk).not.toContain(SECRET);

    const before = readFileSync(claudePath, 'utf8');
    const again = await cli(['--client', 'Claude Desktop', '--server', 'everything']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already going through the proxy: everything/);
    expect(readFileSync(claudePath, 'utf8')).toBe(before);
    const listed = JSON.parse((await cli(['--json'])).stdout) as CaptureConfig[];
    expect(listed.find((c) => c.client === 'Claude Desktop')!.entries.map((e) => [e.name, e.captured])).toEqual([
      ['everything', true],
      ['memory', false],
      ['remote', true],
    ]);
  });

  it('captures a VS Code JSONC config with its comments and trailing commas kept', async () => {
    const { code, stdout } = await cli(['--client', 'VS Code', '--json']);
    expect(code).toBe(0);
    const { results } = JSON.parse(stdout) as { results: CaptureResult[] };
    expect(results.map((r) => [r.path, r.changed])).toEqual([[vscodePath, ['fs', 'legacy']]]);
    expect(results[0]!.commands[0]!.command).toMatch(/--upstream http:\/\/localhost:3001\/sse --port \d+ --transport sse/);
    const after = readFileSync(vscodePath, 'utf8');
    for (const kept of ['// my servers\n{', '/* the filesystem */', '], // roots\n    },', '"type": "stdio",']) expect(after).toContain(kept);
    const doc = parse(after) as { servers: { fs: { args: string[] }; legacy: { url: string } } };
    expect(doc.servers.fs.args.slice(-4)).toEqual(['--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '${workspaceFolder}'].slice(-4));
    expect(doc.servers.legacy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
  });

  it('a config it cannot parse is refused (exit 5) and left alone', async () => {
    const { code, stderr } = await cli(['--client', 'Cursor']);
    expect(code).toBe(5);
    expect(stderr).toMatch(/refused: .*mcp\.json cannot be parsed/);
    expect(readFileSync(cursorPath, 'utf8')).toBe(cursorText);
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['--bogus'])).code).toBe(2);
    const nobody = await cli(['--client', 'Nobody']);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/No client matches "Nobody"/);
    expect((await cli(['--client', 'Claude Desktop', '--server', 'nope'])).code).toBe(2);
  });

  it('--restore puts every captured config back byte for byte', async () => {
    const { code, stdout } = await cli(['--restore']);
    expect(code).toBe(0);
    expect(stdout).toContain(`Restored ${claudePath} byte for byte`);
    expect(stdout).toContain(`Restored ${vscodePath} byte for byte`);
    expect(readFileSync(claudePath, 'utf8')).toBe(claudeText);
    expect(readFileSync(vscodePath, 'utf8')).toBe(vscodeText);
    expect(readFileSync(cursorPath, 'utf8')).toBe(cursorText);
    const nothing = await cli(['--restore']);
    expect(nothing.stdout).toMatch(/Nothing to restore/);
  });
});
