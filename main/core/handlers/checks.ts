/** Handlers for judging a server (#16): the conformance suite, the connection doctor, OTLP export; each part in its own file. */
import type { AuthService } from '../auth/auth-service';
import type { Handlers } from '../dispatcher';
import { conformanceHandlers } from './conformance';
import type { CoreContext } from './context';
import { doctorHandlers } from './doctor';
import { otlpHandlers } from './otlp';

export function checkHandlers(ctx: CoreContext, auth?: AuthService): Pick<Handlers, 'conformanceRun' | 'checkCancel' | 'doctorRun' | 'otlpSend'> {
  return { ...conformanceHandlers(ctx, auth), ...doctorHandlers(ctx), ...otlpHandlers(ctx) };
}
