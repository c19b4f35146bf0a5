/**
 * MCP Apps handlers: open an app (read its `ui://` resource through the traced resources/read,
 * build its CSP, register its sandbox page), close it, record the bridge messages the renderer
 * saw cross (trace channel `app`) and the app's console errors, CSP violations and log
 * notifications (Logs, source `mcp-app`).
 */
import { randomUUID } from 'node:crypto';
import type { AppBridgeMessage, AppLogEntry, AppInstance } from '../../../contract';
import { safeStringify } from '../../../contract/bounded-json';
import type { TraceEventInput } from '../../../contract/trace';
import { buildAppCsp } from '../apps/csp';
import { BURST, RATE, appIdentity, type LiveApp } from '../apps/instances';
import { allowFeatures, appResourceOf, declaredCspOf, permissionsOf } from '../apps/resource';
import { SANDBOX_PROXY_SCRIPT_PATH, type AppSandboxHost } from '../apps/sandbox-host';
import { record } from '../apps/shape';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { RequestSeqs } from '../trace/request-seqs';
import { summarizeRpc, traceBody } from '../trace/rpc';
import { readServerResource } from './catalog';
import { findConnection, type CoreContext } from './context';

/** Characters of one app log line (after control characters are taken out). */
const MAX_LOG_CHARS = 8_000;

type AppHandlers = Pick<Handlers, 'appOpen' | 'appClose' | 'appTrace' | 'appLog'>;

export function appHandlers(ctx: CoreContext, sandbox: AppSandboxHost | undefined): AppHandlers {
  return {
    appOpen: async ({ serverId, uri, tool, grant }) => {
      if (!sandbox) throw new CoreError('conflict', 'MCP Apps cannot open here: this carrier has no sandbox origin.');
      if (!uri.startsWith('ui://')) throw new CoreError('invalid-arguments', `${JSON.stringify(uri.slice(0, 200))} is not a ui:// resource; an MCP App's UI always is.`);
      const connection = findConnection(ctx, serverId);
      const state = connection.status().state;
      if (state !== 'connected' && !connection.isIdle()) throw new CoreError('conflict', `Server "${connection.config.name}" is ${state}: connect it to open its app.`);
      let seqs: RequestSeqs = {};
      const read = await readServerResource(ctx, serverId, uri, (s) => (seqs = s));
      const listed = connection.serverLists().resources.find((r) => r.uri === uri);
      const resource = appResourceOf(read.result, uri, listed);
      const ui = resource.ui ?? {};
      const notes: string[] = [];
      if (resource.uiFrom === 'list') notes.push('The content item has no _meta.ui: its policy and permissions come from the resources/list entry.');
      if (ui.csp !== undefined && !record(ui.csp)) notes.push('_meta.ui.csp is not an object: the default policy applies (nothing from the network).');
      const proxyScriptUrl = `${sandbox.origin}${SANDBOX_PROXY_SCRIPT_PATH}`;
      const csp = buildAppCsp((record(ui.csp) ?? {}) as never, { proxyScriptUrl });
      const permissions = permissionsOf(ui.permissions);
      const granted = permissions.filter((p) => grant.includes(p));
      const domain = typeof ui.domain === 'string' ? inert(ui.domain.slice(0, 253)) : undefined;
      if (domain !== undefined) {
        notes.push(
          `The resource asks for a dedicated origin (domain "${domain}"). Switchboard does not honour it: every app runs on Switchboard's sandbox origin (${sandbox.origin}), which is neither the app's nor Switchboard's own, and the domain's format is host-specific (a dedicated origin would need a name Switchboard serves).`,
        );
      }
      const instanceId = randomUUID();
      let sandboxUrl: string;
      try {
        sandboxUrl = sandbox.register({ instanceId, csp: csp.policy, allow: allowFeatures(granted) });
      } catch (error) {
        throw new CoreError('failed', `The sandbox could not serve this app: ${error instanceof Error ? error.message : String(error)}`);
      }
      const entry = tool ? ctx.connections.catalog.current().tools.find((t) => t.name === tool && t.serverId === serverId) : undefined;
      const app: LiveApp = {
        instanceId,
        serverId,
        serverName: connection.config.name,
        uri,
        ...(tool ? { tool: entry?.name ?? tool } : {}),
        mimeType: resource.mimeType.slice(0, 200),
        sandboxUrl,
        sandboxOrigin: sandbox.origin,
        csp: csp.policy,
        declared: declaredCspOf(ui.csp),
        refused: csp.refused,
        permissions,
        granted,
        ...(typeof ui.prefersBorder === 'boolean' ? { prefersBorder: ui.prefersBorder } : {}),
        ...(domain !== undefined ? { domain } : {}),
        notes,
        durationMs: read.durationMs,
        ...(seqs.requestSeq !== undefined ? { traceSeq: seqs.requestSeq } : {}),
      };
      for (const closed of ctx.apps.add(app)) ctx.logs.app('info', `MCP Apps: the oldest app instance (${closed}) was closed to open another (at most 64 are open at once).`);
      return { ...app, html: resource.html } satisfies AppInstance;
    },

    appClose: async ({ instanceId }) => ({ closed: ctx.apps.close(instanceId) }),

    appTrace: async ({ instanceId, messages }) => {
      const app = recordedApp(ctx, instanceId);
      const redactor = findConnection(ctx, app.serverId).redactor;
      const kept = ctx.apps.take(instanceId, messages.length);
      const identity = appIdentity(app);
      for (const message of messages.slice(0, kept)) ctx.trace.record(bridgeEvent(app.serverId, message, identity, redactor));
      const dropped = messages.length - kept;
      if (dropped > 0) {
        ctx.trace.record({ server: app.serverId, channel: 'app', kind: 'error', dir: 'in', meta: { ...identity, dropped }, text: `${dropped} bridge messages of this app were not recorded: it sent more than the trace keeps for one app (a burst of ${BURST.toLocaleString('en-US')}, then ${RATE.toLocaleString('en-US')} a second).` });
      }
      return { recorded: kept };
    },

    appLog: async ({ instanceId, entries }) => {
      const app = recordedApp(ctx, instanceId);
      const kept = ctx.apps.take(instanceId, entries.length);
      const prefix = `[app ${app.tool ?? app.uri}]`;
      for (const entry of entries.slice(0, kept)) ctx.logs.write({ serverId: app.serverId, source: 'mcp-app', level: entry.level, text: `${prefix} ${KIND_WORDS[entry.kind]}${inert(entry.text)}`, ts: entry.ts });
      if (kept < entries.length) ctx.logs.write({ serverId: app.serverId, source: 'mcp-app', level: 'warning', text: `${prefix} ${entries.length - kept} more lines from this app were not written: it sent more than Logs keeps for one app.` });
      return { written: kept };
    },
  };
}

const KIND_WORDS: Record<AppLogEntry['kind'], string> = { console: 'console: ', csp: 'CSP violation: ', log: '', bridge: 'bridge: ' };

/** The app a bridge message or log line belongs to: open, or closed a moment ago (its last words, flushed by the page after it closed it). */
function recordedApp(ctx: CoreContext, instanceId: string): LiveApp {
  const app = ctx.apps.recorded(instanceId);
  if (!app) throw new CoreError('not-found', `No open app instance "${instanceId.slice(0, 64)}" (it was closed, or Switchboard restarted).`);
  if (!ctx.connections.get(app.serverId)) {
    ctx.apps.close(instanceId);
    throw new CoreError('not-found', `The server of app instance "${instanceId}" was removed; the app is closed.`);
  }
  return app;
}

/** One bridge message as a trace event of the `app` channel, its body bounded and redacted like any body. */
function bridgeEvent(server: string, message: AppBridgeMessage, identity: Record<string, unknown>, redactor: Parameters<typeof traceBody>[2]): TraceEventInput {
  const text = safeStringify(message.message);
  const rpc = summarizeRpc(message.message);
  const kind = message.refused !== undefined ? 'error' : message.dir === 'out' ? 'jsonrpc-out' : 'jsonrpc-in';
  return {
    server,
    channel: 'app',
    kind,
    dir: message.dir,
    ...(rpc ? { rpc } : {}),
    ...traceBody(message.message, text, redactor, false),
    bytes: text.length,
    meta: identity,
    ...(message.refused !== undefined ? { text: inert(message.refused) } : {}),
  };
}

/**
 * Text from an app, safe to show and store: control characters (but newline and tab), and the
 * invisible and direction-changing ones that make a line read as something else, become `�`;
 * at most MAX_LOG_CHARS.
 */
export function inert(text: string): string {
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, '\ufffd');
  return clean.length > MAX_LOG_CHARS ? `${clean.slice(0, MAX_LOG_CHARS)}… (${clean.length} characters)` : clean;
}
