/** MCP Apps handlers: STUB — being built (issue #14). */
import { CoreError } from '../errors';
import type { AppSandboxHost } from '../apps/sandbox-host';
import type { Handlers } from '../dispatcher';
import type { CoreContext } from './context';

export function appHandlers(_ctx: CoreContext, _sandbox: AppSandboxHost | undefined): Pick<Handlers, 'appOpen' | 'appClose' | 'appTrace' | 'appLog'> {
  const notYet = async (): Promise<never> => {
    throw new CoreError('failed', 'MCP Apps are not built yet.');
  };
  return { appOpen: notYet, appClose: notYet, appTrace: notYet, appLog: notYet };
}
