/** Writes server entries back in the formats other clients read. */
import type { ClientFormat, ServerConfig } from '../../../contract';

export function exportServers(configs: ServerConfig[], format: ClientFormat): string {
  if (format === 'switchboard') {
    const servers = configs.map(({ id: _id, lastCheck: _check, ...rest }) => rest);
    return JSON.stringify({ switchboard: 1, servers }, null, 2) + '\n';
  }
  const table: Record<string, unknown> = {};
  for (const config of configs) table[config.name] = format === 'vscode' ? vscodeEntry(config) : mcpServersEntry(config);
  return JSON.stringify(format === 'vscode' ? { servers: table } : { mcpServers: table }, null, 2) + '\n';
}

function mcpServersEntry(config: ServerConfig): Record<string, unknown> {
  const { target } = config;
  if (target.type === 'stdio') {
    return { command: target.command, args: target.args, ...(Object.keys(target.env).length ? { env: target.env } : {}), ...(target.cwd ? { cwd: target.cwd } : {}) };
  }
  const type = target.transport === 'sse' ? 'sse' : target.transport === 'streamable-http' ? 'http' : undefined;
  return { ...(type ? { type } : {}), url: target.url, ...(Object.keys(target.headers).length ? { headers: target.headers } : {}) };
}

function vscodeEntry(config: ServerConfig): Record<string, unknown> {
  const { target } = config;
  if (target.type === 'stdio') return { type: 'stdio', ...mcpServersEntry(config) };
  return { type: target.transport === 'sse' ? 'sse' : 'http', url: target.url, ...(Object.keys(target.headers).length ? { headers: target.headers } : {}) };
}
