/**
 * otlpSend (#16): a trace source (live, an imported file, an open recording) as OTLP traces to an
 * OTLP/HTTP endpoint (protobuf), secrets redacted as for the exports (the trace's redaction at the
 * source, then every server's secrets scrubbed from every string before serialization).
 */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { OtlpEndpointError, checkEndpoint } from '../otlp/endpoint';
import { loadOtlpExport, loadOtlpSend } from '../otlp/lazy';
import type { CoreContext } from './context';
import { firstOf } from './trace';

export function otlpHandlers(ctx: CoreContext): Pick<Handlers, 'otlpSend'> {
  return {
    otlpSend: async ({ source, url, headers }) => {
      try {
        checkEndpoint({ url, headers });
      } catch (error) {
        if (error instanceof OtlpEndpointError) throw new CoreError('invalid-arguments', `${error.message} Nothing was sent.`);
        throw error;
      }
      const opened = source === 'live' ? undefined : ctx.sources.require(source);
      const hub = opened?.hub ?? ctx.trace;
      const names = Object.fromEntries((opened?.servers ?? ctx.connections.all().map((c) => c.config)).map((s) => [s.id, s.name]));
      const [{ otlpSpanBatches }, { OtlpSendError, sendSpanBatches }] = await Promise.all([loadOtlpExport(), loadOtlpSend()]);
      const batches = otlpSpanBatches({
        // The trace as it was when asked for (a live one grows meanwhile).
        events: firstOf(hub.store.all(), hub.store.size),
        serverNames: names,
        redactors: ctx.connections.all().map((c) => c.redactor),
        app: { name: 'Switchboard', version: ctx.version },
      });
      try {
        return await sendSpanBatches({ url, headers }, batches);
      } catch (error) {
        if (error instanceof OtlpSendError) {
          const partly = error.sent.spans ? ` ${error.sent.spans} spans had been taken before it.` : '';
          throw new CoreError('failed', `${error.message}${partly}`);
        }
        throw new CoreError('failed', `Could not send the trace: ${(error as Error).message}`);
      }
    },
  };
}
