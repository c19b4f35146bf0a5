/**
 * A tool call's response as the server sent it, from the trace: the Raw tab's text and what
 * "Save" writes. The result the view renders crossed the contract cut at LIMITS.carriedDepth;
 * the trace kept the bytes (see components/raw-body.ts), so the raw view never re-serializes a cut
 * value. The response is found from the request's trace event: the JSON-RPC answer with its id
 * on the same exchange (HTTP), or on the server's stdout after it (stdio).
 */
import { Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import type { SwitchboardApi } from '../../../../contract/client';
import type { TraceEvent } from '../../../../contract/trace';
import { useApi } from '../../api/context';
import { TEXT_LIMIT, TEXT_PREVIEW, TextCutNotice } from '../../components/Truncated';
import { rawBodyText } from '../../components/raw-body';
import classes from './tools.module.css';

const isAnswer = (e: TraceEvent, id: string | number) =>
  (e.rpc?.id === id && (e.rpc.kind === 'result' || e.rpc.kind === 'error')) || (e.batch?.some((b) => b.id === id && (b.kind === 'result' || b.kind === 'error')) ?? false);

/** The trace event that carries the answer to the request recorded at `requestSeq`. */
export async function findResponse(api: SwitchboardApi, requestSeq: number): Promise<TraceEvent | undefined> {
  const { event: request } = await api.traceEvent({ seq: requestSeq });
  const id = request.rpc?.id;
  if (id === undefined) return undefined;
  const page = request.exchange
    ? await api.traceQuery({ exchange: request.exchange, order: 'asc', limit: 5000 })
    : await api.traceQuery({ servers: [request.server], kinds: ['jsonrpc-in'], cursor: requestSeq, order: 'asc', limit: 5000 });
  return page.events.find((e) => isAnswer(e, id));
}

export function RawResponse({ requestSeq }: { requestSeq?: number }) {
  const api = useApi();
  const [state, setState] = useState<{ loading: boolean; text?: string; exact?: boolean; seq?: number; error?: string }>({ loading: false });
  const [all, setAll] = useState(false);
  if (requestSeq === undefined) return null;
  const load = async () => {
    setState({ loading: true });
    try {
      const found = await findResponse(api, requestSeq);
      if (!found) return setState({ loading: false, error: 'the response is not in the trace (cleared, or a read-only trace)' });
      const { event, payload } = await api.traceEvent({ seq: found.seq });
      setState({ loading: false, seq: found.seq, ...rawBodyText(event, payload) });
    } catch (error) {
      setState({ loading: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const { text } = state;
  const huge = text !== undefined && text.length > TEXT_LIMIT;
  return (
    <div data-testid="tool-raw-response">
      <Group gap="xs" mb={4}>
        <Text size="xs" fw={600}>
          The response as received
        </Text>
        {text === undefined && (
          <Button size="compact-xs" variant="light" loading={state.loading} onClick={() => void load()} data-testid="tool-raw-load">
            Load from the trace
          </Button>
        )}
        {state.seq !== undefined && (
          <Text size="xs" c="dimmed">
            trace event #{state.seq} · {text!.length.toLocaleString('en-US')} characters{state.exact === false ? ' (re-serialized: the trace kept it parsed)' : ''}
          </Text>
        )}
        {state.error && (
          <Text size="xs" c="red">
            Could not load it: {state.error}
          </Text>
        )}
      </Group>
      {text !== undefined && (
        <>
          <pre className={classes.resultText} data-testid="tool-raw-text">
            {huge && !all ? text.slice(0, TEXT_PREVIEW) : text}
          </pre>
          <TextCutNotice
            total={text.length}
            shown={huge && !all ? TEXT_PREVIEW : text.length}
            all={!huge || all}
            onShowAll={() => setAll(true)}
            text={text}
            filename={`response-${state.seq}.json`}
            testId="tool-raw-truncated"
            showAllTestId="tool-raw-show-all"
            saveTestId="tool-raw-save"
          />
        </>
      )}
    </div>
  );
}
