/**
 * Where other MCP clients keep their server lists on this platform. Offered read-only: the
 * user picks one to import.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseServerFile } from './import';

export interface ConfigLocation {
  client: string;
  path: string;
}

export function knownConfigLocations(platform = process.platform, home = homedir(), env = process.env, cwd = process.cwd()): ConfigLocation[] {
  const appData = env.APPDATA ?? join(home, 'AppData', 'Roaming');
  const macSupport = join(home, 'Library', 'Application Support');
  const xdg = env.XDG_CONFIG_HOME ?? join(home, '.config');
  const userDir = platform === 'darwin' ? macSupport : platform === 'win32' ? appData : xdg;
  return [
    { client: 'Claude Desktop', path: join(userDir, 'Claude', 'claude_desktop_config.json') },
    { client: 'Claude Code (user)', path: join(home, '.claude.json') },
    { client: 'Cursor', path: join(home, '.cursor', 'mcp.json') },
    { client: 'Windsurf', path: join(home, '.codeium', 'windsurf', 'mcp_config.json') },
    { client: 'VS Code (user)', path: join(userDir, 'Code', 'User', 'mcp.json') },
    { client: 'Project (.mcp.json)', path: join(cwd, '.mcp.json') },
    { client: 'Project (.vscode/mcp.json)', path: join(cwd, '.vscode', 'mcp.json') },
    { client: 'Project (.cursor/mcp.json)', path: join(cwd, '.cursor', 'mcp.json') },
  ];
}

export function discoverConfigs(locations = knownConfigLocations()): { client: string; path: string; exists: boolean; serverCount?: number; error?: string }[] {
  return locations.map(({ client, path }) => {
    if (!existsSync(path)) return { client, path, exists: false };
    try {
      const parsed = parseServerFile(readFileSync(path, 'utf8'));
      return { client, path, exists: true, serverCount: parsed.servers.length + parsed.problems.length };
    } catch (error) {
      return { client, path, exists: true, error: (error as Error).message };
    }
  });
}
