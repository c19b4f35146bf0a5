/**
 * A text input that asks the server for completions (`completion/complete`) as you type:
 * debounced, stale answers dropped, the other filled arguments sent as context. Used for
 * resource-template variables (`ref/resource`) and prompt arguments (`ref/prompt`).
 */
import { Autocomplete, Loader, Text } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ArgsIn } from '../../../contract';
import { errorDetailOf } from '../../../contract/client';
import { useApi } from '../api/context';

export type CompletionRef = ArgsIn<'complete'>['ref'];

const DEBOUNCE_MS = 180;
const MAX_OPTIONS = 100;

/** Servers that said they have no completions: asked again only after a reconnect (new id key). */
const unsupported = new Set<string>();

/** The server has no completions: it did not declare the capability, or answered -32601 (method not found). */
function isUnsupported(error: unknown): boolean {
  const detail = errorDetailOf(error);
  return detail?.kind === 'unsupported' || detail?.rpcCode === -32601;
}

export interface CompletionInputProps {
  serverId: string;
  completionRef: CompletionRef;
  argName: string;
  label: ReactNode;
  description?: ReactNode;
  required?: boolean;
  value: string;
  onChange(value: string): void;
  /** The other arguments already filled, sent as `context.arguments`. */
  context: Record<string, string>;
  error?: ReactNode;
  testId?: string;
  placeholder?: string;
  /** Changes when the server reconnects, so a server that gained completions is asked again. */
  sessionKey?: string;
}

export function CompletionInput(props: CompletionInputProps) {
  const { serverId, completionRef, argName, value, context, sessionKey = '' } = props;
  const api = useApi();
  const [options, setOptions] = useState<string[]>([]);
  const [info, setInfo] = useState<{ total?: number; hasMore?: boolean } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [active, setActive] = useState(false);
  const seq = useRef(0);
  const refKey = completionRef.type === 'ref/prompt' ? `p:${completionRef.name}` : `r:${completionRef.uri}`;
  const contextKey = JSON.stringify(context);
  const unsupportedKey = `${serverId}|${sessionKey}`;

  useEffect(() => {
    if (!active || unsupported.has(unsupportedKey)) return;
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      setLoading(true);
      const ctx = JSON.parse(contextKey) as Record<string, string>;
      api
        .complete({ serverId, ref: completionRef, argument: { name: argName, value }, ...(Object.keys(ctx).length ? { context: { arguments: ctx } } : {}) })
        .then(
          (result) => {
            if (mine !== seq.current) return;
            const unique = [...new Set(result.values.filter((v): v is string => typeof v === 'string'))].slice(0, MAX_OPTIONS);
            setOptions(unique);
            setInfo({ total: result.total, hasMore: result.hasMore });
            setProblem(null);
          },
          (error: Error) => {
            if (mine !== seq.current) return;
            if (isUnsupported(error)) unsupported.add(unsupportedKey);
            setOptions([]);
            setInfo(null);
            setProblem(error.message);
          },
        )
        .finally(() => {
          if (mine === seq.current) setLoading(false);
        });
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // completionRef is described by refKey.
  }, [api, serverId, refKey, argName, value, contextKey, active, unsupportedKey]);

  const hint =
    problem !== null ? (
      <Text span size="xs" c={unsupported.has(unsupportedKey) ? 'dimmed' : 'orange'} className="pre-wrap" data-testid="completion-problem">
        {unsupported.has(unsupportedKey) ? 'No completions from this server' : `Completions failed: ${problem.slice(0, 300)}`}
      </Text>
    ) : info?.hasMore ? (
      <Text span size="xs" c="dimmed">
        {options.length} of {info.total ?? 'more'} completions shown — type more to narrow
      </Text>
    ) : null;

  return (
    <Autocomplete
      size="xs"
      label={props.label}
      description={
        props.description || hint ? (
          <>
            {props.description}
            {props.description && hint ? ' · ' : null}
            {hint}
          </>
        ) : undefined
      }
      withAsterisk={props.required}
      placeholder={props.placeholder}
      value={value}
      onChange={props.onChange}
      data={options}
      filter={({ options: all }) => all}
      limit={MAX_OPTIONS}
      maxDropdownHeight={260}
      onFocus={() => setActive(true)}
      onBlur={() => setActive(false)}
      rightSection={loading ? <Loader size={12} /> : undefined}
      error={props.error}
      classNames={{ input: 'mono' }}
      data-testid={props.testId}
      data-completions={options.length}
      autoComplete="off"
      spellCheck={false}
    />
  );
}
