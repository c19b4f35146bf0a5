export { ConformancePanel } from './ConformancePanel';
