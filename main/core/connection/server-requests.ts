/**
 * When the server asks: the handlers of server-initiated requests (elicitation, sampling, roots)
 * and the notification that ends a URL elicitation. Per-server policies answer first; `ask`
 * goes through the RequestBroker to a person. Each question is tied to what caused it: the one
 * tool call in flight, or the task it names (related-task meta), or the client-side task it was
 * sent as. Tool calls run here too, because of the legacy era's pausable timeout: a question
 * arrives while its tools/call is open, so the call's timeout stands still while a question of
 * this server waits for an answer.
 */
import { ProtocolError, RELATED_TASK_META_KEY, SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client';
import type { PendingRequest, ServerConfig } from '../../../contract';
import { missingRequired, withDefaults, type RequestedSchema } from '../requests/elicitation';
import { clientTaskOf } from '../tasks/task-client';
import { elicitationsOf, URL_ELICITATION_REQUIRED } from './errors';
import type { ConnectionDeps } from './parts';

type Progress = (p: { progress: number; total?: number; message?: string }) => void;

export interface CallOptions {
  timeoutMs?: number;
  onprogress?: Progress;
  signal?: AbortSignal;
  resetTimeoutOnProgress?: boolean;
  callId?: string;
}

/** How a tool call reaches the live client (the state machine's `withClient`) and which era it speaks. */
export interface CallRoute {
  withClient<T>(label: string, safe: boolean, op: (client: Client, timeoutMs: number) => Promise<T>): Promise<T>;
  era(): 'legacy' | 'modern' | undefined;
}

export class ServerRequests {
  /** Tool calls in flight, so a server's question can be tied to the call that caused it. */
  private readonly activeCalls = new Map<symbol, { tool: string; callId?: string }>();
  /** Tasks this run started here (taskId → tool), so a question sent for a task names it. */
  private readonly startedTasks = new Map<string, string>();

  constructor(
    private readonly id: string,
    private readonly deps: ConnectionDeps,
    private readonly config: () => ServerConfig,
  ) {}

  async callTool(route: CallRoute, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const token = Symbol(name);
    this.activeCalls.set(token, { tool: name, callId: options.callId });
    try {
      return await route.withClient('tools/call', false, async (client, defaultTimeout) => {
        const timeout = options.timeoutMs ?? defaultTimeout;
        const paused = route.era() === 'legacy' && this.asksPeople() ? this.pausableTimeout(timeout, options) : undefined;
        try {
          const result = await client.callTool(
            { name, arguments: args },
            paused?.options ?? {
              timeout,
              onprogress: options.onprogress,
              resetTimeoutOnProgress: options.onprogress !== undefined && options.resetTimeoutOnProgress !== false,
              signal: options.signal,
            },
          );
          return result as Record<string, unknown>;
        } finally {
          paused?.dispose();
        }
      });
    } catch (error) {
      throw withElicitationUrls(error);
    } finally {
      this.activeCalls.delete(token);
    }
  }

  /** A task started with tools/call on this server: its questions (related-task meta) are tied to it. */
  noteTask(taskId: string, tool: string): void {
    this.startedTasks.set(taskId, tool);
    if (this.startedTasks.size > 500) this.startedTasks.delete(this.startedTasks.keys().next().value as string);
  }

  private asksPeople(): boolean {
    const config = this.config();
    return this.deps.broker !== undefined && (config.elicitation === 'ask' || config.sampling === 'ask');
  }

  /**
   * Legacy era: a server's questions arrive while its tools/call is open, so the time a person
   * takes to answer would count against the call's timeout. Here the timeout is kept by us and
   * stands still while a question of this server waits for an answer (the modern era times each
   * round trip on its own, so it needs none of this).
   */
  private pausableTimeout(limit: number, options: CallOptions) {
    const broker = this.deps.broker!;
    const controller = new AbortController();
    const outer = options.signal;
    const forward = () => controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    let remaining = limit;
    let last = Date.now();
    const timer = setInterval(
      () => {
        const now = Date.now();
        if (!broker.list().some((r) => r.serverId === this.id)) remaining -= now - last;
        last = now;
        if (remaining <= 0 && !controller.signal.aborted) controller.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: limit }));
      },
      Math.max(10, Math.min(250, limit / 4)),
    );
    const reset = options.onprogress !== undefined && options.resetTimeoutOnProgress !== false;
    const onprogress = options.onprogress;
    return {
      options: {
        timeout: 2_000_000_000,
        signal: controller.signal,
        onprogress: onprogress
          ? (p: { progress: number; total?: number; message?: string }) => {
              if (reset) remaining = limit;
              onprogress(p);
            }
          : undefined,
      },
      dispose: () => {
        clearInterval(timer);
        outer?.removeEventListener('abort', forward);
      },
    };
  }

  /** Installs the handlers on a new client; only what the policies allow is answered (and declared, see negotiation). */
  install(client: Client): void {
    const config = this.config;
    const era = () => (client.getProtocolEra() === 'modern' ? 'modern' : 'legacy') as 'legacy' | 'modern';
    const call = () => {
      const calls = [...this.activeCalls.values()];
      return calls.length === 1 ? calls[0] : undefined;
    };
    // A question sent for a server-side task (related-task meta) belongs to that task; one the
    // server sent as a task of ours (params.task) is answered inside a client-side task.
    const task = (params: Record<string, unknown>, ctx: unknown): PendingRequest['task'] => {
      const clientTaskId = clientTaskOf(ctx);
      if (clientTaskId) return { taskId: clientTaskId, side: 'client' };
      const related = (params._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
      if (typeof related?.taskId !== 'string') return undefined;
      const tool = this.startedTasks.get(related.taskId);
      return { taskId: related.taskId, side: 'server', ...(tool ? { tool } : {}) };
    };
    const base = (params: Record<string, unknown> = {}, ctx?: unknown) => {
      const ofTask = task(params, ctx);
      return { serverId: this.id, serverName: config().name, era: era(), call: ofTask?.side === 'server' ? undefined : call(), ...(ofTask ? { task: ofTask } : {}) };
    };

    if (config().elicitation !== 'off') {
      client.setRequestHandler('elicitation/create', async (request, ctx) => {
        const params = request.params as Record<string, unknown> & { mode?: string; requestedSchema?: RequestedSchema };
        const kind = params.mode === 'url' ? 'elicitation-url' : 'elicitation-form';
        const policy = config().elicitation;
        if (policy === 'decline' || policy === 'cancel') {
          this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, policy);
          return { action: policy };
        }
        if (policy === 'accept-defaults') {
          if (kind === 'elicitation-url') {
            this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, 'decline (a URL needs a person to open it)');
            return { action: 'decline' };
          }
          const schema = params.requestedSchema ?? {};
          const content = withDefaults(schema, this.deps.elicitationAnswers);
          const missing = missingRequired(schema, content);
          if (missing.length) {
            const why = `decline: required field${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ha${missing.length > 1 ? 've' : 's'} no default and no supplied answer`;
            this.deps.observer.onError(this.id, `${config().name}: elicitation ${why}`);
            this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, why);
            return { action: 'decline' };
          }
          this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind, params }, 'accept with defaults');
          return { action: 'accept', content: content as Record<string, string | number | boolean | string[]> };
        }
        if (!this.deps.broker) return { action: 'decline' };
        const answer = await this.deps.broker.ask({ ...base(params, ctx), kind, params }, { signal: ctx.mcpReq.signal });
        if (answer.kind !== 'elicitation') return { action: 'cancel' };
        if (answer.action !== 'accept' || kind === 'elicitation-url') return { action: answer.action };
        return { action: 'accept', content: withDefaults(params.requestedSchema ?? {}, answer.content) as Record<string, string | number | boolean | string[]> };
      });
    }

    if (config().sampling !== 'off') {
      client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
        const params = request.params as unknown as Record<string, unknown>;
        if (config().sampling === 'reject' || !this.deps.broker) {
          this.deps.broker?.answeredByPolicy({ ...base(params, ctx), kind: 'sampling', params }, 'reject');
          throw new ProtocolError(-1, 'The user rejected the sampling request (Switchboard policy: reject).');
        }
        const answer = await this.deps.broker.ask({ ...base(params, ctx), kind: 'sampling', params }, { signal: ctx.mcpReq.signal });
        if (answer.kind !== 'sampling' || answer.action !== 'approve' || !answer.result) {
          throw new ProtocolError(-1, `The user rejected the sampling request${answer.kind === 'sampling' && answer.reason ? `: ${answer.reason}` : '.'}`);
        }
        return { role: 'assistant', model: answer.result.model, stopReason: answer.result.stopReason, content: answer.result.content } as never;
      });
    }

    if (config().roots.length > 0) {
      client.setRequestHandler('roots/list', async () => ({ roots: config().roots.map((r) => ({ uri: r.uri, ...(r.name ? { name: r.name } : {}) })) }));
    }

    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      this.deps.observer.onElicitationComplete?.(this.id, notification.params.elicitationId);
    });
  }
}

/**
 * A `-32042` error (URL elicitation required, 2025 era) names the URLs only in its data: put them
 * in the message, readable (the links travel typed in the error's detail: `elicitations`).
 */
function withElicitationUrls(error: unknown): unknown {
  if (!(error instanceof ProtocolError) || error.code !== URL_ELICITATION_REQUIRED) return error;
  const elicitations = elicitationsOf(error.data);
  if (!elicitations) return error;
  const lines = elicitations.map((x) => `  ${x.url}${x.message ? ` — ${x.message}` : ''}`).join('\n');
  return new ProtocolError(
    URL_ELICITATION_REQUIRED,
    `URL elicitation required (-32042): ${error.message}\nThe server asks you to open ${elicitations.length > 1 ? 'these links' : 'this link'} first, then call again:\n${lines}`,
    error.data,
  );
}
