/**
 * MCP Apps: what a tool's `_meta` says about its UI (spec 2026-01-26, `McpUiToolMeta`): the
 * `ui://` resource it renders (`_meta.ui.resourceUri`, or the deprecated flat
 * `_meta["ui/resourceUri"]`; the nested one wins) and who may call it (`_meta.ui.visibility`:
 * `model`, `app`; absent means both). Read defensively: a bad value is ignored and described,
 * never thrown.
 */
import type { ToolEntry } from '../../../contract';
import { kindOf, record } from './shape';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The longest `ui://` URI a tool may name. */
export const MAX_UI_URI_CHARS = 2048;

type Visibility = 'model' | 'app';
type ToolUi = NonNullable<ToolEntry['ui']>;

export interface ToolUiFacts {
  /** What the catalog shows (`ToolEntry.ui`): a valid resource URI, a valid visibility, or both. */
  ui?: ToolUi;
  /** The valid visibility values, also for a tool without a UI of its own (an app-only helper tool). */
  visibility?: Visibility[];
  /** What was wrong with the metadata, in words (empty when nothing was). */
  problems: string[];
}

/** A tool's UI facts from its raw tools/list entry. */
export function toolUiOf(tool: { _meta?: unknown }): ToolUiFacts {
  const meta = record(tool._meta);
  const problems: string[] = [];
  if (!meta) return { problems };
  const nested = record(meta.ui);
  if (meta.ui !== undefined && !nested) problems.push(`_meta.ui is ${kindOf(meta.ui)}, not an object`);
  const nestedUri = nested?.resourceUri;
  const flatUri = meta['ui/resourceUri'];
  const [uriValue, uriWhere] = nestedUri !== undefined ? [nestedUri, '_meta.ui.resourceUri'] : [flatUri, '_meta["ui/resourceUri"]'];
  let resourceUri: string | undefined;
  if (uriValue !== undefined) {
    if (typeof uriValue !== 'string') problems.push(`${uriWhere} is ${kindOf(uriValue)}, not a string`);
    else if (!uriValue.startsWith('ui://')) problems.push(`${uriWhere} ${JSON.stringify(uriValue.slice(0, 80))} does not start with ui://`);
    else if (uriValue.length > MAX_UI_URI_CHARS) problems.push(`${uriWhere} is ${uriValue.length} characters long (at most ${MAX_UI_URI_CHARS})`);
    else resourceUri = uriValue;
  }
  const visibility = visibilityOf(nested?.visibility, problems);
  return {
    ...(resourceUri !== undefined || visibility ? { ui: { ...(resourceUri !== undefined ? { resourceUri } : {}), ...(visibility ? { visibility } : {}) } } : {}),
    ...(visibility ? { visibility } : {}),
    problems,
  };
}

/**
 * Only `model` and `app` are kept, once each. A list that named something but nothing valid is
 * kept empty (visible to neither): a tool that tried to restrict itself stays restricted.
 */
function visibilityOf(value: unknown, problems: string[]): Visibility[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push(`_meta.ui.visibility is ${kindOf(value)}, not a list`);
    return [];
  }
  const kept: Visibility[] = [];
  let ignored = 0;
  for (const item of value) {
    if (item === 'model' || item === 'app') {
      if (!kept.includes(item)) kept.push(item);
    } else ignored++;
  }
  if (ignored) problems.push(`_meta.ui.visibility has ${ignored} value${ignored === 1 ? '' : 's'} other than "model" and "app" (ignored)`);
  return kept;
}

/** May an app call this tool? Absent visibility means both (spec default `["model", "app"]`). */
export function visibleToApps(visibility: readonly Visibility[] | undefined): boolean {
  return visibility === undefined || visibility.includes('app');
}

/** One protocol log line per tool whose UI metadata was ignored (at most `limit`, then a count). */
export function toolUiProblemLines(tools: readonly { name: string; _meta?: unknown }[], limit = 20): string[] {
  const lines: string[] = [];
  let more = 0;
  for (const tool of tools) {
    const { problems } = toolUiOf(tool);
    if (!problems.length) continue;
    if (lines.length < limit) lines.push(`tools/list: tool "${String(tool.name).slice(0, 120)}": ${problems.join('; ')}. Switchboard ignores that part of its UI metadata.`);
    else more++;
  }
  if (more) lines.push(`tools/list: ${more} more tools have UI metadata Switchboard ignores.`);
  return lines;
}
