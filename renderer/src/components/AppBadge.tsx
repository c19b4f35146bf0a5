/**
 * The "App" badge beside a tool that declares an MCP App (`_meta.ui.resourceUri`), wherever a
 * tool is listed (Apps, the server info panel), and the mark of who may call it. The resource
 * uri is server text: clipped.
 */
import { Badge, Tooltip } from '@mantine/core';
import type { ToolEntry } from '../../../contract';
import { VISIBILITY_HINT, visibilityOf } from './app-tool';

export function AppBadge({ ui, size = 'xs' }: { ui: { resourceUri: string }; size?: 'xs' | 'sm' }) {
  return (
    <Tooltip label={`MCP App: its interface is the resource ${ui.resourceUri.slice(0, 200)}`} multiline maw={360}>
      <Badge size={size} variant="light" color="cyan" style={{ flex: 'none' }} data-testid="app-badge">
        App
      </Badge>
    </Tooltip>
  );
}

/** `app-only`, `model-only` or `hidden` (nothing for a tool both may use). */
export function VisibilityBadge({ tool, size = 'xs' }: { tool: Pick<ToolEntry, 'ui'>; size?: 'xs' | 'sm' }) {
  const visibility = visibilityOf(tool);
  if (visibility === 'both') return null;
  return (
    <Tooltip label={VISIBILITY_HINT[visibility]} multiline maw={320}>
      <Badge size={size} variant="outline" color={visibility === 'app-only' ? 'grape' : visibility === 'model-only' ? 'blue' : 'gray'} style={{ flex: 'none' }} data-testid="app-visibility" data-visibility={visibility}>
        {visibility}
      </Badge>
    </Tooltip>
  );
}
