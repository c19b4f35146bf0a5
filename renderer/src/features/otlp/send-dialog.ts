/** Which trace the "Send to an OpenTelemetry collector" dialog is open for (a tiny store; the modal reads it). */
import { Store } from '../../state/store';

export type OtlpSendTarget = { sourceId: string; name: string } | { recordingId: string; name: string };

export const otlpSendStore = new Store<{ target?: OtlpSendTarget; nonce: number }>({ nonce: 0 });

export const otlpSendDialog = {
  get: otlpSendStore.get,
  subscribe: otlpSendStore.subscribe,
  open(target: OtlpSendTarget): void {
    otlpSendStore.patch({ target, nonce: otlpSendStore.get().nonce + 1 });
  },
  close(): void {
    otlpSendStore.patch({ target: undefined });
  },
};
