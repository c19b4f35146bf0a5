/** MCP Apps: the sandboxed host, its bridge, and the Apps view. Other features import only this file. */
export { AppHost, preloadApp, type AppHostProps } from './AppHost';
export { AppsView } from './AppsView';
