/** Starts opening an app tool's instance ahead of its AppHost (on selection): no React, no bridge code, so it stays in the first chunk cheaply. */
import type { ToolEntry } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { isAppTool } from '../../components/app-tool';
import { appInstances } from './host/instances';

export function preloadApp(api: SwitchboardApi, tool: ToolEntry): void {
  if (isAppTool(tool)) appInstances(api).preload({ serverId: tool.serverId, uri: tool.ui.resourceUri, tool: tool.name });
}
