/** Handlers for the server list: add, edit, duplicate, remove, connect, test, import, export, and each server's info. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerConfig, ServerConfigInput, ServerStatus } from '../../../contract';
import { discoverConfigs, knownConfigLocations } from '../config/discover';
import { exportServers } from '../config/export';
import { parseServerFile } from '../config/import';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { ServerInfoTracker } from '../server-info/tracker';
import { findConnection, type CoreContext } from './context';

type ServerHandlers = Pick<
  Handlers,
  | 'listServers'
  | 'addServer'
  | 'updateServer'
  | 'duplicateServer'
  | 'removeServer'
  | 'connectServer'
  | 'disconnectServer'
  | 'testServer'
  | 'importServers'
  | 'exportServers'
  | 'discoverConfigs'
  | 'readConfigFile'
  | 'serverInfo'
>;

export function serverHandlers(ctx: CoreContext): ServerHandlers {
  // Watches the live trace from the start, so the info panel knows what each server did since it connected.
  const info = new ServerInfoTracker(ctx.trace);
  const configs = () => ctx.connections.all().map((c) => c.config);

  const assertNameFree = (name: string, exceptId?: string) => {
    const taken = configs().some((c) => c.id !== exceptId && c.name.toLowerCase() === name.trim().toLowerCase());
    if (taken) throw new CoreError('conflict', `A server named "${name}" already exists. Names must be unique.`);
  };

  /** Saves first, then changes the live set: a failed save leaves nothing half-added. */
  const save = (servers: ServerConfig[]) => {
    const settings = ctx.settings.read();
    ctx.settings.write({ ...settings, servers });
  };

  const add = (input: ServerConfigInput): ServerStatus => {
    assertNameFree(input.name);
    const config = { ...input, id: randomUUID() } as ServerConfig;
    save([...configs(), config]);
    return ctx.connections.add(config).status();
  };

  return {
    listServers: async () => ctx.connections.all().map((c) => c.status()),
    addServer: async (input) => add(input),
    updateServer: async ({ id, config: input }) => {
      const connection = findConnection(ctx, id);
      assertNameFree(input.name, id);
      const config: ServerConfig = { ...input, id, lastCheck: undefined };
      save(configs().map((c) => (c.id === id ? config : c)));
      await connection.reconfigure(config);
      return connection.status();
    },
    duplicateServer: async ({ id }) => {
      const { id: _id, lastCheck: _check, name, ...rest } = findConnection(ctx, id).config;
      let copy = `${name} (copy)`;
      for (let n = 2; configs().some((c) => c.name.toLowerCase() === copy.toLowerCase()); n++) copy = `${name} (copy ${n})`;
      return add({ ...rest, name: copy.slice(0, 120) });
    },
    removeServer: async ({ id }) => {
      if (!ctx.connections.get(id)) return { removed: false };
      save(configs().filter((c) => c.id !== id));
      try {
        await ctx.connections.remove(id);
      } finally {
        // Gone from the list as soon as remove began: every window hears it, even if disconnecting failed.
        ctx.trace.snapshots.forget(id);
        info.forget(id);
        ctx.events.emit('serverRemoved', { id });
      }
      return { removed: true };
    },
    connectServer: async ({ id }) => {
      const connection = findConnection(ctx, id);
      if (connection.config.disabled) throw new CoreError('conflict', `Server "${connection.config.name}" is disabled. Enable it first.`);
      await connection.connect();
      return connection.status();
    },
    disconnectServer: async ({ id }) => {
      const connection = findConnection(ctx, id);
      await connection.disconnect();
      return connection.status();
    },
    testServer: async ({ id }) => {
      const connection = findConnection(ctx, id);
      const lastCheck = await connection.check();
      const config = { ...connection.config, lastCheck };
      save(configs().map((c) => (c.id === id ? config : c)));
      connection.config = config;
      ctx.events.emit('serverState', connection.status());
      return lastCheck;
    },
    importServers: async ({ text, connect }) => {
      let parsed;
      try {
        parsed = parseServerFile(text);
      } catch (error) {
        throw new CoreError('invalid-arguments', (error as Error).message);
      }
      const added: ServerStatus[] = [];
      const problems = [...parsed.problems];
      for (const server of parsed.servers) {
        try {
          added.push(add(server));
        } catch (error) {
          problems.push({ name: server.name, message: (error as Error).message });
        }
      }
      if (connect) await Promise.all(added.map((s) => findConnection(ctx, s.id).connect()));
      return { format: parsed.format, added: added.map((s) => findConnection(ctx, s.id).status()), problems };
    },
    exportServers: async ({ ids, format }) => {
      const chosen = ids ? ids.map((id) => findConnection(ctx, id).config) : configs();
      return { text: exportServers(chosen, format) };
    },
    serverInfo: async ({ id }) => {
      findConnection(ctx, id);
      return info.info(id);
    },
    discoverConfigs: async () => discoverConfigs(),
    readConfigFile: async ({ path }) => {
      // Only the well-known locations: this is not a general file reader.
      if (!knownConfigLocations().some((l) => l.path === path)) throw new CoreError('invalid-arguments', `Not a known MCP client configuration file: ${path}`);
      try {
        return { text: readFileSync(path, 'utf8') };
      } catch (error) {
        throw new CoreError('not-found', `Cannot read ${path}: ${(error as Error).message}`);
      }
    },
  };
}
