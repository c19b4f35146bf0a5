export { OtlpSendModal } from './OtlpSendModal';
export { otlpSendDialog, type OtlpSendTarget } from './send-dialog';
