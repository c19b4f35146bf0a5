/**
 * Capture (#12) on real files in a temp dir: wrapping entries of a Claude-Desktop-style config and
 * a VS Code JSONC config (comments, trailing commas) changes only those entries' values; restore
 * gives the original bytes back; a file changed between read and write is not overwritten; an
 * unparseable file is left alone; capturing twice does not wrap twice; secrets never show.
 */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CaptureRefused, applyCapture, backupDirOf, configHash, restoreCapture, scanCaptureConfigs, unwrapProxyArgs, type CaptureOptions } from '../../main/core/capture/capture';

export const CLAUDE_DESKTOP = `{
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": { "API_TOKEN": "sk-live-SECRET-VALUE-123" }
    },
    "memory": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-memory"
      ]
    },
    "bare": { "command": "my-server" },
    "remote": {
      "type": "http",
      "url": "https://mcp.example.com/v1/mcp?tenant=acme&api_key=QUERY-SECRET-999",
      "headers": { "Authorization": "Bearer HEADER-SECRET-777" }
    }
  },
  "globalShortcut": "Ctrl+Space"
}
`;

export const VSCODE_JSONC = `// VS Code: MCP servers for this user
{
\t"inputs": [
\t\t{ "type": "promptString", "id": "token", "description": "API token", "password": true },
\t],
\t/* the servers
\t   (block comment) */
\t"servers": {
\t\t"fs": {
\t\t\t"type": "stdio",
\t\t\t"command": "npx", // launched by npx
\t\t\t"args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],
\t\t},
\t\t"legacy": { "type": "sse", "url": "http://localhost:3001/sse" },
\t\t"github": {
\t\t\t"type": "http",
\t\t\t"url": "https://api.githubcopilot.com/mcp/",
\t\t\t"headers": { "Authorization": "Bearer \${input:token}" },
\t\t},
\t},
}
`;

let dir: string;
let options: CaptureOptions;
let nextPort: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-capture-unit-'));
  nextPort = 47001;
  options = {
    proxyCommand: { command: '/opt/node/bin/node', args: ['/opt/switchboard/bin/switchboard.mjs'] },
    backupDir: join(dir, 'data', 'capture-backups'),
    dataDir: join(dir, 'data'),
    choosePort: async () => nextPort++,
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string, mode = 0o644): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

/** Where two texts differ: the first and last differing offsets (so "every other byte" can be checked). */
function outsideSpans(original: string, changed: string, spans: string[]): void {
  // Remove each changed span's new text and the original's old text: what is left is equal.
  let a = original;
  let b = changed;
  for (const span of spans) {
    const [oldText, newText] = span.split('\u0000') as [string, string];
    expect(a.includes(oldText), `original has ${oldText}`).toBe(true);
    expect(b.includes(newText), `rewritten has ${newText}`).toBe(true);
    a = a.replace(oldText, '\u0001');
    b = b.replace(newText, '\u0001');
  }
  expect(b).toBe(a);
}

describe('capture: a Claude-Desktop-style config (mcpServers, plain JSON)', () => {
  it('wraps the chosen stdio and HTTP entries, leaves every other byte, and restores the original bytes', async () => {
    const path = file('claude_desktop_config.json', CLAUDE_DESKTOP, 0o640);
    const before = readFileSync(path);

    const [scanned] = scanCaptureConfigs([{ client: 'Claude Desktop', path }], options);
    expect(scanned).toMatchObject({ client: 'Claude Desktop', exists: true, format: 'json' });
    expect(scanned!.entries.map((e) => [e.name, e.transport, e.captured])).toEqual([
      ['everything', 'stdio', false],
      ['memory', 'stdio', false],
      ['bare', 'stdio', false],
      ['remote', 'http', false],
    ]);
    // Secrets never show: env values, header values, secret URL parameters.
    const shown = JSON.stringify(scanned);
    for (const secret of ['sk-live-SECRET-VALUE-123', 'QUERY-SECRET-999', 'HEADER-SECRET-777']) expect(shown).not.toContain(secret);
    expect(scanned!.entries[0]!.target).toBe('npx -y @modelcontextprotocol/server-everything (env: API_TOKEN)');
    expect(scanned!.entries[3]!.target).toContain('api_key=%5Bredacted%5D');

    const result = await applyCapture(path, ['everything', 'bare', 'remote'], options);
    expect(result.changed).toEqual(['everything', 'bare', 'remote']);
    expect(result.commands).toEqual([
      {
        name: 'remote',
        command: `/opt/node/bin/node /opt/switchboard/bin/switchboard.mjs proxy --name remote --upstream 'https://mcp.example.com/v1/mcp?tenant=acme&api_key=QUERY-SECRET-999' --port 47001 --data-dir ${options.dataDir}`,
      },
    ]);
    expect(result.message).toMatch(/cannot reach it until you run the command/);

    const after = readFileSync(path, 'utf8');
    const doc = parse(after) as { mcpServers: Record<string, { command?: string; args?: string[]; url?: string; env?: object; headers?: object }> };
    expect(doc.mcpServers.everything).toEqual({
      command: '/opt/node/bin/node',
      args: ['/opt/switchboard/bin/switchboard.mjs', 'proxy', '--name', 'everything', '--data-dir', options.dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-everything'],
      env: { API_TOKEN: 'sk-live-SECRET-VALUE-123' },
    });
    expect(doc.mcpServers.bare).toEqual({ command: '/opt/node/bin/node', args: ['/opt/switchboard/bin/switchboard.mjs', 'proxy', '--name', 'bare', '--data-dir', options.dataDir, '--', 'my-server'] });
    expect(doc.mcpServers.remote!.url).toBe('http://127.0.0.1:47001/v1/mcp?tenant=acme&api_key=QUERY-SECRET-999');
    expect(doc.mcpServers.remote!.headers).toEqual({ Authorization: 'Bearer HEADER-SECRET-777' });

    // Only the chosen values changed: the memory entry, its multi-line layout, the other keys are the same bytes.
    outsideSpans(CLAUDE_DESKTOP, after, [
      `"command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-everything"]\u0000"command": "/opt/node/bin/node",\n      "args": ["/opt/switchboard/bin/switchboard.mjs", "proxy", "--name", "everything", "--data-dir", ${JSON.stringify(options.dataDir)}, "--", "npx", "-y", "@modelcontextprotocol/server-everything"]`,
      `{ "command": "my-server" }\u0000{ "command": "/opt/node/bin/node", "args": ["/opt/switchboard/bin/switchboard.mjs", "proxy", "--name", "bare", "--data-dir", ${JSON.stringify(options.dataDir)}, "--", "my-server"] }`,
      `"https://mcp.example.com/v1/mcp?tenant=acme&api_key=QUERY-SECRET-999"\u0000"http://127.0.0.1:47001/v1/mcp?tenant=acme&api_key=QUERY-SECRET-999"`,
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o640);

    // The backup: owner-only, the original bytes.
    const backup = backupDirOf(options.backupDir, path);
    expect(result.backup).toBe(backup);
    expect(statSync(backup).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(backup, 'original')).equals(before)).toBe(true);
    expect(statSync(join(backup, 'original')).mode & 0o777).toBe(0o600);

    const rescanned = scanCaptureConfigs([{ client: 'Claude Desktop', path }], options)[0]!;
    expect(rescanned.backup).toBe(backup);
    expect(rescanned.entries.map((e) => [e.name, e.captured])).toEqual([
      ['everything', true],
      ['memory', false],
      ['bare', true],
      ['remote', true],
    ]);
    // A captured entry shows what it really launches.
    expect(rescanned.entries[0]!.target).toBe('npx -y @modelcontextprotocol/server-everything (env: API_TOKEN)');
    expect(rescanned.entries[3]!.target).toMatch(/^https:\/\/mcp\.example\.com\/v1\/mcp\?tenant=acme&api_key=%5Bredacted%5D \(headers: Authorization\) \(via the proxy on 127\.0\.0\.1:47001\)$/);

    const restored = restoreCapture(path, options);
    expect(restored.changed).toEqual(['everything', 'bare', 'remote']);
    expect(restored.message).toMatch(/byte for byte/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(scanCaptureConfigs([{ client: 'Claude Desktop', path }], options)[0]!.backup).toBeUndefined();
  });

  it('capturing twice does not wrap twice, and a second capture adds to the same backup', async () => {
    const path = file('c.json', CLAUDE_DESKTOP);
    await applyCapture(path, ['everything'], options);
    const once = readFileSync(path, 'utf8');
    const again = await applyCapture(path, ['everything'], options);
    expect(again.changed).toEqual([]);
    expect(again.message).toMatch(/already going through the proxy: everything/);
    expect(readFileSync(path, 'utf8')).toBe(once);

    const more = await applyCapture(path, ['everything', 'memory', 'remote'], options);
    expect(more.changed).toEqual(['memory', 'remote']);
    const doc = parse(readFileSync(path, 'utf8')) as { mcpServers: Record<string, { args: string[] }> };
    expect(doc.mcpServers.everything!.args.filter((a) => a === 'proxy')).toHaveLength(1);
    restoreCapture(path, options);
    expect(readFileSync(path, 'utf8')).toBe(CLAUDE_DESKTOP);
  });

  it('an HTTP entry keeps its port when captured again after a restore', async () => {
    const path = file('c.json', CLAUDE_DESKTOP);
    const first = await applyCapture(path, ['remote'], options);
    restoreCapture(path, options);
    const second = await applyCapture(path, ['remote'], options);
    expect(second.commands[0]!.command).toBe(first.commands[0]!.command);
  });

  it('a file changed between reading and writing is not overwritten (and the backup is not left claiming a capture)', async () => {
    const path = file('c.json', CLAUDE_DESKTOP);
    const edited = CLAUDE_DESKTOP.replace('Ctrl+Space', 'Alt+Space');
    const error = await applyCapture(path, ['everything'], { ...options, beforeWrite: () => writeFileSync(path, edited) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CaptureRefused);
    expect((error as CaptureRefused).reason).toBe('conflict');
    expect((error as Error).message).toMatch(/changed while Switchboard was writing it.*nothing was written/);
    expect(readFileSync(path, 'utf8')).toBe(edited);
    expect(scanCaptureConfigs([{ client: 'x', path }], options)[0]!.backup).toBeUndefined();
    expect(readdirTemp(dir)).toEqual([]);
  });

  it('a file changed since it was scanned (expectedHash) is not overwritten', async () => {
    const path = file('c.json', CLAUDE_DESKTOP);
    const seen = configHash(path)!;
    writeFileSync(path, CLAUDE_DESKTOP.replace('"bare"', '"bare2"'));
    await expect(applyCapture(path, ['everything'], { ...options, expectedHash: seen })).rejects.toMatchObject({ reason: 'conflict', message: expect.stringMatching(/changed since it was scanned/) });
    expect(readFileSync(path, 'utf8')).toContain('"bare2"');
  });

  it('restore after the person edited the file: only our entries are un-wrapped, their edits stay', async () => {
    const path = file('c.json', CLAUDE_DESKTOP);
    await applyCapture(path, ['everything', 'bare', 'remote'], options);
    const wrapped = readFileSync(path, 'utf8');
    const edited = wrapped.replace('"globalShortcut": "Ctrl+Space"', '"globalShortcut": "Alt+Space"');
    writeFileSync(path, edited);
    const result = restoreCapture(path, options);
    expect(result.message).toMatch(/changed since Switchboard captured it.*every other edit was kept/);
    expect(readFileSync(path, 'utf8')).toBe(CLAUDE_DESKTOP.replace('Ctrl+Space', 'Alt+Space'));
  });

  it('a Claude Code ~/.claude.json: top-level and per-project servers', async () => {
    const text = JSON.stringify({ numStartups: 3, mcpServers: { a: { type: 'stdio', command: 'srv-a', args: [] } }, projects: { '/home/me/p': { allowedTools: [], mcpServers: { a: { command: 'srv-p' } } } } }, null, 2) + '\n';
    const path = file('.claude.json', text);
    const [scanned] = scanCaptureConfigs([{ client: 'Claude Code (user)', path }], options);
    expect(scanned!.entries.map((e) => e.name)).toEqual(['a', 'a (project /home/me/p)']);
    await applyCapture(path, ['a (project /home/me/p)'], options);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: { a: { command: string } }; projects: Record<string, { mcpServers: { a: { command: string; args: string[] } } }> };
    expect(doc.mcpServers.a.command).toBe('srv-a');
    expect(doc.projects['/home/me/p']!.mcpServers.a.args.slice(-2)).toEqual(['--', 'srv-p']);
    restoreCapture(path, options);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('restore finds the backup under the data dir the wrapped entries name (captured with another data dir)', async () => {
    const path = file('c.json', CLAUDE_DESKTOP);
    await applyCapture(path, ['everything', 'remote'], options);
    const result = restoreCapture(path, { backupDir: join(dir, 'elsewhere', 'capture-backups') });
    expect(result.message).toMatch(/byte for byte/);
    expect(readFileSync(path, 'utf8')).toBe(CLAUDE_DESKTOP);
  });

  it('a Windsurf config: an HTTP entry under "serverUrl" is pointed at the local proxy, and back', async () => {
    const text = '{\n  "mcpServers": {\n    "remote": { "serverUrl": "https://example.com/a/mcp?x=1" }\n  }\n}\n';
    const path = file('mcp_config.json', text);
    const result = await applyCapture(path, ['remote'], options);
    expect(readFileSync(path, 'utf8')).toBe(text.replace('https://example.com/a/mcp?x=1', 'http://127.0.0.1:47001/a/mcp?x=1'));
    expect(result.commands[0]!.command).toContain("--upstream 'https://example.com/a/mcp?x=1' --port 47001");
    restoreCapture(path, options);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a symlinked config is edited where it lives; the link stays a link', async () => {
    const real = file('real.json', CLAUDE_DESKTOP);
    const link = join(dir, 'link.json');
    symlinkSync(real, link);
    await applyCapture(link, ['everything'], options);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('"proxy"');
    restoreCapture(link, options);
    expect(readFileSync(real, 'utf8')).toBe(CLAUDE_DESKTOP);
  });
});

describe('capture: a VS Code JSONC config (comments, trailing commas, tabs)', () => {
  it('keeps comments and trailing commas, rewrites only the chosen entries, and restores byte for byte', async () => {
    const path = file('mcp.json', VSCODE_JSONC);
    const [scanned] = scanCaptureConfigs([{ client: 'VS Code (user)', path }], options);
    expect(scanned!.format).toBe('jsonc');
    expect(scanned!.entries.map((e) => [e.name, e.transport, e.target])).toEqual([
      ['fs', 'stdio', 'npx -y @modelcontextprotocol/server-filesystem \'${workspaceFolder}\''],
      ['legacy', 'http', 'http://localhost:3001/sse (SSE)'],
      ['github', 'http', 'https://api.githubcopilot.com/mcp/ (headers: Authorization)'],
    ]);

    const result = await applyCapture(path, ['fs', 'legacy'], options);
    expect(result.changed).toEqual(['fs', 'legacy']);
    expect(result.commands[0]!.command).toMatch(/proxy --name legacy --upstream http:\/\/localhost:3001\/sse --port 47001 --transport sse/);
    const after = readFileSync(path, 'utf8');
    outsideSpans(VSCODE_JSONC, after, [
      `"command": "npx", // launched by npx\n\t\t\t"args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],\u0000"command": "/opt/node/bin/node", // launched by npx\n\t\t\t"args": ["/opt/switchboard/bin/switchboard.mjs", "proxy", "--name", "fs", "--data-dir", ${JSON.stringify(options.dataDir)}, "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],`,
      `"http://localhost:3001/sse"\u0000"http://127.0.0.1:47001/sse"`,
    ]);
    expect(after).toContain('// VS Code: MCP servers for this user');
    expect(after).toContain('/* the servers\n\t   (block comment) */');

    restoreCapture(path, options);
    expect(readFileSync(path, 'utf8')).toBe(VSCODE_JSONC);
  });

  it('inserts "args" on its own line in the entry\'s indentation when the entry had none', async () => {
    const text = '{\r\n\t"servers": {\r\n\t\t"x": {\r\n\t\t\t"command": "srv"\r\n\t\t}\r\n\t}\r\n}\r\n';
    const path = file('mcp.json', text);
    await applyCapture(path, ['x'], options);
    const after = readFileSync(path, 'utf8');
    expect(after).toContain('\t\t\t"command": "/opt/node/bin/node",\r\n\t\t\t"args": ["/opt/switchboard/bin/switchboard.mjs"');
    // The person edits the file; restore un-wraps and removes the args we added.
    writeFileSync(path, after.replace('"servers"', '"servers" /* mine */'));
    restoreCapture(path, options);
    expect(readFileSync(path, 'utf8')).toBe(text.replace('"servers"', '"servers" /* mine */'));
  });
});

describe('capture: configs it must leave alone', () => {
  it('an unparseable config is reported with where it breaks, and never written', async () => {
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" \n  }\n';
    const path = file('broken.json', broken);
    const [scanned] = scanCaptureConfigs([{ client: 'Cursor', path }], options);
    expect(scanned!.entries).toEqual([]);
    expect(scanned!.error).toMatch(/cannot be parsed: .* at line \d+, column \d+\. It was left alone/);
    await expect(applyCapture(path, ['a'], options)).rejects.toMatchObject({ reason: 'unparseable' });
    expect(readFileSync(path, 'utf8')).toBe(broken);
    expect(existsSync(backupDirOf(options.backupDir, path))).toBe(false);
  });

  it('hostile input: nesting past the limit, not UTF-8, not an object', async () => {
    const deep = file('deep.json', `{"mcpServers": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const binary = join(dir, 'bin.json');
    writeFileSync(binary, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    const array = file('array.json', '[1, 2]');
    const scanned = scanCaptureConfigs(
      [deep, binary, array].map((path) => ({ client: 'x', path })),
      options,
    );
    expect(scanned.map((s) => s.error)).toEqual([expect.stringMatching(/nested 100001 levels deep/), expect.stringMatching(/not UTF-8 text/), expect.stringMatching(/not a JSON object/)]);
  });

  it('a missing file is listed as absent; an unknown entry name writes nothing', async () => {
    const [absent] = scanCaptureConfigs([{ client: 'Windsurf', path: join(dir, 'nope.json') }], options);
    expect(absent).toMatchObject({ exists: false, entries: [] });
    const path = file('c.json', CLAUDE_DESKTOP);
    await expect(applyCapture(path, ['nope'], options)).rejects.toMatchObject({ reason: 'nothing' });
    expect(readFileSync(path, 'utf8')).toBe(CLAUDE_DESKTOP);
  });
});

describe('unwrapProxyArgs', () => {
  it('recognises our wrapper, and nothing else', () => {
    expect(unwrapProxyArgs('/n/node', ['/x/bin/switchboard.mjs', 'proxy', '--name', 'a', '--', 'npx', '-y', 'srv'])).toEqual({ command: 'npx', args: ['-y', 'srv'], name: 'a' });
    expect(unwrapProxyArgs('switchboard', ['proxy', '--name', 'a', '--', 'srv'])).toEqual({ command: 'srv', args: [], name: 'a' });
    expect(unwrapProxyArgs('npx', ['-y', 'some-proxy', 'proxy', '--', 'x'])).toBeUndefined();
    expect(unwrapProxyArgs('/n/node', ['/x/bin/switchboard.mjs', 'proxy', '--name', 'a'])).toBeUndefined();
  });
});

function readdirTemp(path: string): string[] {
  return readdirSync(path).filter((name) => name.endsWith('.tmp'));
}
