export { ComparePanel } from './ComparePanel';
export { DriftBadge } from './DriftBadge';
