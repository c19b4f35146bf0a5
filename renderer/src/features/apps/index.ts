/** MCP Apps: the sandboxed host, its bridge, and the Apps view. Other features import only this file. */
export { AppHost } from './LazyAppHost';
export type { AppHostProps } from './AppHost';
export { preloadApp } from './preload';
export { hostFeed } from './view/model';
// The Apps view is not exported here: the app shell loads it lazily from its file (React.lazy),
// so importing this barrel (for AppHost) never pulls the view into the first chunk.
