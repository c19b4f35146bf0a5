export { ReplayPanel } from './ReplayPanel';
