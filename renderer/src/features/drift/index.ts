export { ComparePanel } from './ComparePanel';
export { DriftBadge } from './DriftBadge';
export { DriftMenuItems } from './DriftMenuItems';
