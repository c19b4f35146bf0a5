export { ChecksView } from './ChecksView';
