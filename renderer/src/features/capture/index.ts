export { CaptureModal } from './CaptureModal';
