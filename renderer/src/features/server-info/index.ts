/** The server info panel as other views open it. */
export { serverInfoPanel } from './model';
