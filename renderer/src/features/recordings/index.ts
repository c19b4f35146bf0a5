export { RecordingsView } from './RecordingsView';
