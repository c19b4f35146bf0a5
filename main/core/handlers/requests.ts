/** Handlers for server-initiated requests: the pending queue, answers, roots, opening URLs. */
import type { PendingRequest } from '../../../contract';
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { RequestBroker } from '../requests/broker';
import { validateContent, withDefaults, type RequestedSchema } from '../requests/elicitation';
import { checkExternalUrl } from '../requests/external-url';
import { findConnection, type CoreContext } from './context';

export type OpenExternal = (url: string) => Promise<boolean>;

export function requestHandlers(ctx: CoreContext, broker: RequestBroker, openExternal?: OpenExternal): Pick<Handlers, 'listPendingRequests' | 'answerRequest' | 'setRoots' | 'openExternal'> {
  return {
    listPendingRequests: async () => broker.list(),
    answerRequest: async ({ id, answer }) => {
      const pending = broker.list().find((r) => r.id === id);
      if (!pending) return { answered: false };
      checkAnswer(pending, answer);
      return { answered: broker.answer(id, answer) };
    },
    setRoots: async ({ serverId, roots }) => {
      const connection = findConnection(ctx, serverId);
      const settings = ctx.settings.read();
      ctx.settings.write({ ...settings, servers: settings.servers.map((s) => (s.id === serverId ? { ...s, roots } : s)) });
      await connection.setRoots(roots);
      return connection.status();
    },
    openExternal: async ({ url }) => {
      const verdict = checkExternalUrl(url, { allowLoopbackHttp: true });
      if (!verdict.ok) throw new CoreError('invalid-arguments', verdict.reason);
      if (!openExternal) return { opened: false };
      return { opened: await openExternal(verdict.url.toString()) };
    },
  };
}

/** A wrong answer stays pending and the person sees why; the server never gets an invalid reply. */
function checkAnswer(pending: PendingRequest, answer: Parameters<Handlers['answerRequest']>[0]['answer']): void {
  const isElicitation = pending.kind === 'elicitation-form' || pending.kind === 'elicitation-url';
  if (isElicitation !== (answer.kind === 'elicitation')) throw new CoreError('invalid-arguments', `This request is ${pending.kind}; the answer was for ${answer.kind}.`);
  if (answer.kind === 'elicitation' && answer.action === 'accept' && pending.kind === 'elicitation-form') {
    const schema = (pending.params.requestedSchema ?? {}) as RequestedSchema;
    const problems = validateContent(schema, withDefaults(schema, answer.content));
    if (problems.length) throw new CoreError('invalid-arguments', `The answer does not fit the form: ${problems.join('; ')}.`);
  }
  if (answer.kind === 'elicitation' && answer.action === 'accept' && pending.kind === 'elicitation-url') {
    // Accepting tells the server the person opened the link: never for a link Switchboard refuses to open.
    const verdict = checkExternalUrl(String(pending.params.url ?? ''));
    if (!verdict.ok) throw new CoreError('invalid-arguments', `${verdict.reason} Decline or cancel this request instead.`);
  }
  if (answer.kind === 'sampling' && answer.action === 'approve') {
    if (!answer.result) throw new CoreError('invalid-arguments', 'Approving a sampling request needs the reply (model and content).');
    const toolsOffered = Array.isArray(pending.params.tools) && pending.params.tools.length > 0;
    if (Array.isArray(answer.result.content) && !toolsOffered) throw new CoreError('invalid-arguments', 'No tools were offered: the reply must be a single content block, not a list.');
  }
}
