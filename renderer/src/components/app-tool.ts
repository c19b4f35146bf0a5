/**
 * MCP Apps as every view reads it (pure, unit-tested from Node): whether a tool has an app
 * (`ToolEntry.ui`, filled by main from `_meta.ui.resourceUri`), who may call it, and which app a
 * bridge message on the trace's `app` channel belongs to.
 */
import type { ToolEntry } from '../../../contract';
import type { TraceEvent } from '../../../contract/trace';

/** A tool with an app of its own (a `ui://` resource); a tool may have `ui` with only a visibility. */
export type AppTool = ToolEntry & { ui: NonNullable<ToolEntry['ui']> & { resourceUri: string } };

export function isAppTool(tool: ToolEntry): tool is AppTool {
  return typeof tool.ui?.resourceUri === 'string' && tool.ui.resourceUri.length > 0;
}

/**
 * Who may use the tool, from `_meta.ui.visibility` (absent: both). `app-only`: hidden from a
 * model, called by its app (a host does not run it from a form); `model-only`: an app may not
 * call it; `hidden`: an empty list (visible to neither).
 */
export type Visibility = 'both' | 'app-only' | 'model-only' | 'hidden';

export function visibilityOf(tool: Pick<ToolEntry, 'ui'>): Visibility {
  const list = tool.ui?.visibility;
  if (!list) return 'both';
  const app = list.includes('app');
  const model = list.includes('model');
  return app && model ? 'both' : app ? 'app-only' : model ? 'model-only' : 'hidden';
}

export const VISIBILITY_HINT: Record<Exclude<Visibility, 'both'>, string> = {
  'app-only': 'app-only (_meta.ui.visibility ["app"]): hidden from a model and called by its app; a host does not run it from a form.',
  'model-only': 'model-only (_meta.ui.visibility ["model"]): an app may not call it (Switchboard refuses such calls from the bridge).',
  hidden: 'visible to neither (_meta.ui.visibility []): no model sees it and no app may call it.',
};

/** Which MCP App an `app`-channel event belongs to (`meta.app`), read defensively: imported traces are files anyone wrote. */
export interface AppIdentity {
  instanceId?: string;
  uri?: string;
  tool?: string;
}

const str = (value: unknown, max: number): string | undefined => (typeof value === 'string' && value.length > 0 ? value.slice(0, max) : undefined);

/** undefined for an event of another channel; `{}` for a bridge event whose app is not named. */
export function appOf(e: Pick<TraceEvent, 'channel' | 'meta'>): AppIdentity | undefined {
  if (e.channel !== 'app') return undefined;
  const app = e.meta?.app;
  if (!app || typeof app !== 'object' || Array.isArray(app)) return {};
  const a = app as Record<string, unknown>;
  return { instanceId: str(a.instanceId, 64), uri: str(a.uri, 2_048), tool: str(a.tool, 300) };
}
