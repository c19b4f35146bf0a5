/** Server configuration: every validation rule with its message, and import/export of each client format. */
import { describe, expect, it } from 'vitest';
import { ServerConfigInput } from '../../contract';
import { exportServers } from '../../main/core/config/export';
import { parseServerFile } from '../../main/core/config/import';
import { formatIssues } from '../../main/core/errors';

const stdio = { type: 'stdio', command: 'node' } as const;
const http = { type: 'http', url: 'https://example.com/mcp' } as const;

function problems(input: unknown): string[] {
  const parsed = ServerConfigInput.safeParse(input);
  return parsed.success ? [] : formatIssues(parsed.error).map((i) => `${i.path}: ${i.message}`);
}

describe('server config validation', () => {
  it.each([
    [{ name: '', target: stdio }, 'name: name must not be empty'],
    [{ name: '   ', target: stdio }, 'name: name must not be empty'],
    [{ name: 'x'.repeat(121), target: stdio }, 'name: name must be at most 120 characters'],
    [{ name: 'a', target: { type: 'stdio', command: '  ' } }, 'target.command: command must not be empty'],
    [{ name: 'a', target: { type: 'http', url: 'ftp://example.com/x' } }, 'target.url: url must be http: or https:, not ftp:'],
    [{ name: 'a', target: { type: 'http', url: 'not a url' } }, 'target.url: "not a url" is not a valid URL'],
    [{ name: 'a', target: { type: 'http', url: 'https://user:pw@example.com/mcp' } }, 'target.url: url must not contain a user:password part; put credentials in a header'],
    [{ name: 'a', target: { type: 'http', url: 'https://user@example.com/mcp' } }, 'target.url: url must not contain a user:password part; put credentials in a header'],
    [{ name: 'a', target: http, requestTimeoutSec: 0 }, 'requestTimeoutSec: requestTimeoutSec must be between 1 and 300 seconds'],
    [{ name: 'a', target: http, requestTimeoutSec: 301 }, 'requestTimeoutSec: requestTimeoutSec must be between 1 and 300 seconds'],
    [{ name: 'a', target: http, connectTimeoutSec: 1000 }, 'connectTimeoutSec: connectTimeoutSec must be between 1 and 300 seconds'],
    [{ name: 'a', target: http, requestTimeoutSec: 1.5 }, 'requestTimeoutSec: requestTimeoutSec must be a whole number of seconds'],
    [{ name: 'a', target: http, retries: 6 }, 'retries: retries must be between 0 and 5'],
    [{ name: 'a', target: http, retries: -1 }, 'retries: retries must be between 0 and 5'],
  ])('rejects %j with "%s"', (input, message) => {
    expect(problems(input)).toContain(message);
  });

  it('accepts the edges and applies defaults', () => {
    const parsed = ServerConfigInput.parse({ name: 'x'.repeat(120), target: http, requestTimeoutSec: 300, connectTimeoutSec: 1, retries: 5 });
    expect(parsed).toMatchObject({ era: 'auto', retries: 5, pingIntervalSec: 30, idleTimeoutSec: 0, disabled: false, target: { transport: 'auto', headers: {} } });
    expect(problems({ name: 'a', target: { type: 'http', url: 'http://127.0.0.1:3000/mcp' }, retries: 0 })).toEqual([]);
  });
});

describe('import of client formats', () => {
  it('reads Claude Desktop / Cursor / .mcp.json "mcpServers", reporting the broken entry and keeping the rest', () => {
    const result = parseServerFile(
      JSON.stringify({
        mcpServers: {
          filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: 1 } },
          remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
          legacy: { type: 'sse', url: 'https://old.example.com/sse' },
          explicit: { transport: 'streamable-http', url: 'https://x.example.com/mcp' },
          broken: { args: ['no command'] },
        },
      }),
    );
    expect(result.format).toBe('mcpServers');
    expect(result.servers.map((s) => s.name)).toEqual(['filesystem', 'remote', 'legacy', 'explicit']);
    expect(result.servers[0]!.target).toEqual({ type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' }, nonSecretEnv: [] });
    expect(result.servers[1]!.target).toMatchObject({ type: 'http', transport: 'auto' });
    expect(result.servers[2]!.target).toMatchObject({ type: 'http', transport: 'sse' });
    expect(result.servers[3]!.target).toMatchObject({ type: 'http', transport: 'streamable-http' });
    expect(result.problems).toEqual([{ name: 'broken', message: 'entry needs a "command" (stdio) or a "url" (HTTP)' }]);
  });

  it('reads VS Code "servers" with type and inputs, comments and trailing commas', () => {
    const text = `{
      // VS Code allows comments
      "inputs": [{ "id": "token", "type": "promptString", "description": "API token", "password": true }],
      "servers": {
        "gh": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
        "local": { "type": "stdio", "command": "node", "args": ["server.js"], },
        "bad-url": { "type": "http", "url": "https://user:pw@example.com" },
        "weird": { "type": "carrier-pigeon", "url": "https://x" },
      },
    }`;
    const result = parseServerFile(text);
    expect(result.format).toBe('vscode');
    expect(result.servers.map((s) => s.name)).toEqual(['gh', 'local']);
    expect(result.inputs).toEqual([{ id: 'token', description: 'API token', password: true }]);
    expect(result.problems.map((p) => p.name)).toEqual(['bad-url', 'weird']);
    expect(result.problems[0]!.message).toContain('user:password');
    expect(result.problems[1]!.message).toContain('unknown transport type "carrier-pigeon"');
  });

  it("reads Switchboard's own export, and exports round-trip in every format", () => {
    const servers = parseServerFile(JSON.stringify({ mcpServers: { a: { command: 'node', args: ['a.js'] }, b: { type: 'sse', url: 'https://b.example.com/sse' } } })).servers;
    const configs = servers.map((s, i) => ({ ...s, id: `id-${i}` }));
    for (const format of ['mcpServers', 'vscode', 'switchboard'] as const) {
      const back = parseServerFile(exportServers(configs, format));
      expect(back.format).toBe(format);
      expect(back.problems).toEqual([]);
      expect(back.servers.map((s) => [s.name, s.target])).toEqual(servers.map((s) => [s.name, s.target]));
    }
  });

  it('says clearly what is wrong with a file that is not a server list', () => {
    expect(() => parseServerFile('{ nope')).toThrow(/Not valid JSON/);
    expect(() => parseServerFile('{"foo": 1}')).toThrow(/Expected "mcpServers"/);
  });
});
