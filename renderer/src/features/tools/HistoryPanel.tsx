/**
 * This run's calls (newest first: tool, arguments, duration, outcome) and the saved calls of
 * each server's collection. Click one to put its arguments in the tool's form; run it again in
 * one click.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { ActionIcon, Badge, Button, Group, ScrollArea, Stack, Switch, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import type { HistoryEntry, SavedCall, ToolEntry } from '../../../../contract';
import { useApi } from '../../api/context';
import { refreshHistory, savedChanged, useHistory, useSavedVersion } from './calls-store';
import { SafeLabel, visibleText } from '../../components/SafeText';
import { formatMs } from '../../components/format';
import classes from './tools.module.css';

const OUTCOME_COLOR: Record<HistoryEntry['outcome'], string> = {
  ok: 'var(--mantine-color-green-6)',
  'tool-error': 'var(--mantine-color-orange-6)',
  'rpc-error': 'var(--mantine-color-red-6)',
  timeout: 'var(--mantine-color-red-4)',
  'transport-error': 'var(--mantine-color-red-8)',
  cancelled: 'var(--mantine-color-gray-5)',
};

const OUTCOME_WORD: Record<HistoryEntry['outcome'], string> = {
  ok: 'ok',
  'tool-error': 'tool error',
  'rpc-error': 'JSON-RPC error',
  timeout: 'timed out',
  'transport-error': 'failed',
  cancelled: 'cancelled',
};

const failedWithReason = (entry: Pick<HistoryEntry, 'outcome' | 'error'>): entry is Pick<HistoryEntry, 'outcome'> & { error: string } =>
  entry.outcome !== 'ok' && entry.outcome !== 'tool-error' && entry.outcome !== 'cancelled' && !!entry.error;

/** What became of a call, said once: main's words for a failure when it has them, else the outcome. */
export function historyOutcome(entry: Pick<HistoryEntry, 'outcome' | 'error'>): string {
  if (!failedWithReason(entry)) return OUTCOME_WORD[entry.outcome];
  return entry.error.length > 300 ? `${entry.error.slice(0, 300)}…` : entry.error;
}

function argsPreview(args: Record<string, unknown>): string {
  const text = safeStringify(args);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The `auditArgumentValues` setting: argument values are written to disk (a tool's last
 * arguments, to pre-fill its form; values in the call audit) only when it is on.
 */
function RememberArguments() {
  const api = useApi();
  const [on, setOn] = useState<boolean | undefined>();
  useEffect(() => {
    void api.getSettings().then((settings) => setOn(settings.auditArgumentValues));
  }, [api]);
  if (on === undefined) return null;
  return (
    <Tooltip
      multiline
      w={280}
      label="Keeps each tool's last arguments to pre-fill its form, and argument values in the call audit, with the server's configured secrets redacted. Off: no argument value is written to disk."
    >
      <Switch
        size="xs"
        label="Remember arguments"
        checked={on}
        data-testid="remember-arguments"
        onChange={(event) => {
          const next = event.currentTarget.checked;
          setOn(next);
          // What main kept wins (a refused update puts the switch back).
          api.updateSettings({ auditArgumentValues: next }).then(
            (settings) => setOn(settings.auditArgumentValues),
            () => setOn(!next),
          );
        }}
      />
    </Tooltip>
  );
}

export function HistoryPanel({ tools, onOpen, onRunAgain }: { tools: ToolEntry[]; onOpen(tool: ToolEntry, args: Record<string, unknown>, origin: 'history'): void; onRunAgain(tool: ToolEntry, args: Record<string, unknown>): void }) {
  const api = useApi();
  const { entries, loaded } = useHistory(api);
  useEffect(() => {
    void refreshHistory(api);
  }, [api]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: entries.length, getScrollElement: () => scrollRef.current, estimateSize: () => 60, overscan: 10 });
  const byName = new Map(tools.map((t) => [t.name, t]));

  return (
    <div className={classes.explorer}>
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Text size="xs" c="dimmed" data-testid="history-count">
          {entries.length} {entries.length === 1 ? 'call' : 'calls'} in this run
        </Text>
        <RememberArguments />
      </Group>
      <div ref={scrollRef} className={classes.listViewport} data-testid="history-list">
        {loaded && entries.length === 0 && (
          <Text size="sm" c="dimmed" p="sm">
            Calls you make appear here, with their arguments and outcome.
          </Text>
        )}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const entry = entries[item.index]!;
            const tool = byName.get(entry.tool);
            return (
              <div key={entry.id} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: item.size, transform: `translateY(${item.start}px)` }}>
                <Group gap={4} wrap="nowrap" align="flex-start">
                  <UnstyledButton
                    className={classes.historyRow}
                    onClick={() => tool && onOpen(tool, entry.args, 'history')}
                    disabled={!tool}
                    data-testid="history-item"
                    data-tool-name={entry.tool}
                    data-outcome={entry.outcome}
                    title={`${entry.error ? `${entry.error}\n\n` : ''}${tool ? 'Put these arguments in the form' : 'This tool is not available now (its server is not connected)'}`}
                  >
                    <Group gap={6} wrap="nowrap">
                      <span className={classes.outcomeDot} style={{ background: OUTCOME_COLOR[entry.outcome] }} />
                      <span className={classes.toolName} style={{ flex: 1, minWidth: 0, overflow: 'hidden', opacity: tool ? 1 : 0.6 }}>
                        <SafeLabel text={entry.tool} max={120} />
                      </span>
                      <Text size="xs" c="dimmed" className="mono" style={{ flex: 'none' }}>
                        {formatMs(entry.durationMs)}
                      </Text>
                    </Group>
                    <Group gap={6} wrap="nowrap">
                      <Text size="xs" c={failedWithReason(entry) ? 'red' : 'dimmed'} style={{ flex: failedWithReason(entry) ? '1 1 auto' : 'none', minWidth: 0, overflow: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis' }} data-testid="history-outcome">
                        {new Date(entry.ts).toLocaleTimeString()} · {visibleText(historyOutcome(entry), 300)}
                      </Text>
                      {/* A failure's reason gets the line (its arguments go in the form on click). */}
                      {!failedWithReason(entry) && (
                        <Text size="xs" c="dimmed" className="mono" style={{ minWidth: 0, overflow: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis' }}>
                          <SafeLabel text={argsPreview(entry.args)} max={200} />
                        </Text>
                      )}
                    </Group>
                  </UnstyledButton>
                  <Tooltip label="Run again with these arguments">
                    <ActionIcon variant="subtle" size="sm" mt={8} disabled={!tool} onClick={() => tool && onRunAgain(tool, entry.args)} aria-label="Run again" data-testid="history-run-again">
                      ▶
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** Finds the tool a saved call is for: by server name and bare name (stable across restarts). */
export function toolForSaved(call: SavedCall, tools: ToolEntry[]): ToolEntry | undefined {
  return tools.find((t) => t.serverName === call.serverName && t.originalName === call.tool) ?? tools.find((t) => t.name === call.tool);
}

export function SavedPanel({ tools, onOpen, onRun }: { tools: ToolEntry[]; onOpen(tool: ToolEntry, args: Record<string, unknown>, origin: 'saved'): void; onRun(tool: ToolEntry, args: Record<string, unknown>): void }) {
  const api = useApi();
  const version = useSavedVersion(api);
  const [saved, setSaved] = useState<SavedCall[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.listSavedCalls().then(
      (list) => {
        setSaved(list);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  }, [api, version]);
  const collections = new Map<string, SavedCall[]>();
  for (const call of saved ?? []) collections.set(call.serverName, [...(collections.get(call.serverName) ?? []), call]);

  return (
    <div className={classes.explorer}>
      <Text size="xs" c="dimmed" mb={4}>
        Saved calls, in one collection per server (by server name).
      </Text>
      {error && (
        <Text size="xs" c="red">
          {error}
        </Text>
      )}
      <ScrollArea style={{ flex: 1 }} data-testid="saved-list">
        {saved && saved.length === 0 && (
          <Text size="sm" c="dimmed" p="sm">
            Nothing saved yet. Use “Save…” next to Run to keep a call’s arguments under a name.
          </Text>
        )}
        <Stack gap="sm">
          {[...collections].map(([serverName, calls]) => (
            <Stack key={serverName} gap={2} data-testid="saved-collection" data-server-name={serverName}>
              <Group gap={6} className={classes.groupHeader} style={{ borderBottom: 0 }}>
                <span style={{ minWidth: 0, flex: 1, overflow: 'hidden' }}>
                  <SafeLabel text={serverName} max={80} />
                </span>
                <span>{calls.length}</span>
              </Group>
              {calls.map((call) => {
                const tool = toolForSaved(call, tools);
                return (
                  <Group key={call.id} gap={4} wrap="nowrap" data-testid="saved-item" data-saved-name={call.name} px={4}>
                    <UnstyledButton
                      style={{ flex: 1, minWidth: 0 }}
                      className={classes.historyRow}
                      styles={{ root: { height: 'auto' } }}
                      onClick={() => tool && onOpen(tool, call.args, 'saved')}
                      disabled={!tool}
                      title={tool ? 'Put these arguments in the form' : `No connected server offers ${call.tool}`}
                    >
                      <Text size="sm" style={{ overflow: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis' }}>
                        <SafeLabel text={call.name} max={120} />
                      </Text>
                      <Text size="xs" c="dimmed" className="mono" style={{ overflow: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis' }}>
                        {call.tool.slice(0, 100)} · {argsPreview(call.args)}
                      </Text>
                    </UnstyledButton>
                    <Button size="compact-xs" variant="light" disabled={!tool} onClick={() => tool && onRun(tool, call.args)} data-testid="saved-run">
                      Run
                    </Button>
                    <Tooltip label="Delete this saved call">
                      <ActionIcon
                        size="sm"
                        variant="subtle"
                        color="red"
                        aria-label="Delete"
                        onClick={() =>
                          api.deleteSavedCall({ id: call.id }).then(
                            () => savedChanged(api),
                            (e: Error) => setError(e.message),
                          )
                        }
                        data-testid="saved-delete"
                      >
                        ×
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                );
              })}
              {!tools.some((t) => t.serverName === serverName) && (
                <Badge size="xs" variant="light" color="gray" ml={8}>
                  server not connected
                </Badge>
              )}
            </Stack>
          ))}
        </Stack>
      </ScrollArea>
    </div>
  );
}
