/** STUB (issue #14): the sandboxed MCP App frame, its bridge and its Devtools strip — being built. */
import type { ToolEntry } from '../../../../contract';

export interface AppHostProps {
  /** The app tool (its `ui.resourceUri` names the resource). */
  tool: ToolEntry;
  /** Full tool arguments to send as `ui/notifications/tool-input`. */
  input?: Record<string, unknown>;
  /** True while the person is still editing: sent as `tool-input-partial`. */
  inputPartial?: boolean;
  /** The finished call's result (CallToolResult.result), sent as `tool-result`. */
  result?: Record<string, unknown>;
  /** The call was cancelled: sent as `tool-cancelled`. */
  cancelled?: boolean;
}

export function AppHost(_props: AppHostProps) {
  return null;
}
