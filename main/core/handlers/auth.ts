/** Handlers for signing in to servers that ask for OAuth. */
import { AuthService } from '../auth/auth-service';
import type { PopupLogin } from '../auth/popup-login';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import { findConnection, type CoreContext } from './context';

type AuthHandlers = Pick<Handlers, 'authStatus' | 'signIn' | 'signOut' | 'cancelSignIn' | 'pendingSignIns' | 'authStepMode' | 'authContinue'>;

export function authHandlers(ctx: CoreContext, auth: AuthService, popup: PopupLogin | undefined): AuthHandlers {
  return {
    authStatus: async ({ id }) => {
      const connection = findConnection(ctx, id);
      const provider = connection.authProvider();
      const storage = auth.store.info;
      if (!provider) return { serverId: id, applies: false, signedIn: false, hasRefreshToken: false, inFlow: false, stepMode: false, storage };
      return { serverId: id, applies: true, storage, ...(await provider.status()) };
    },
    signIn: async ({ id }) => {
      const connection = findConnection(ctx, id);
      if (!AuthService.applies(connection.config)) throw new CoreError('conflict', `Server "${connection.config.name}" does not sign in with OAuth (stdio, OAuth turned off, or an Authorization header of its own).`);
      if (connection.config.disabled) throw new CoreError('conflict', `Server "${connection.config.name}" is disabled. Enable it first.`);
      // From an error state ("sign in again"), start over; a live connection is left alone.
      if (connection.status().state !== 'connected') await connection.disconnect();
      await connection.connect();
      return connection.status();
    },
    signOut: async ({ id }) => {
      const connection = findConnection(ctx, id);
      const provider = connection.authProvider();
      if (!provider) throw new CoreError('conflict', `Server "${connection.config.name}" does not sign in with OAuth.`);
      const result = await provider.signOut();
      await connection.disconnect('signed out');
      return result;
    },
    cancelSignIn: async ({ flowId, serverId }) => {
      let cancelled = flowId ? (popup?.cancel(flowId) ?? false) : false;
      if (serverId) {
        const provider = findConnection(ctx, serverId).authProvider();
        if (provider && (await provider.status()).inFlow) {
          provider.cancel();
          cancelled = true;
        }
      }
      return { cancelled };
    },
    pendingSignIns: async () => popup?.prompts() ?? [],
    authStepMode: async ({ id, on }) => {
      const connection = findConnection(ctx, id);
      const provider = connection.authProvider();
      if (!provider) throw new CoreError('conflict', `Server "${connection.config.name}" does not sign in with OAuth.`);
      provider.setStepMode(on);
      return { stepMode: on };
    },
    authContinue: async ({ id }) => ({ continued: findConnection(ctx, id).authProvider()?.continueStep() ?? false }),
  };
}
