/**
 * "Send to an OpenTelemetry collector…" (#16): a trace (live, imported, a recording) as OTLP traces
 * to an OTLP/HTTP endpoint, with headers for auth (`otlpSend`: main sends, protobuf). The endpoint
 * and the header names are remembered in this browser's storage; header values never are (they are
 * typed into masked fields and live only in this dialog).
 */
import { ActionIcon, Alert, Button, Code, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { OtlpSendResult } from '../../../../contract';
import { useApi } from '../../api/context';
import { useStore } from '../../state/useStore';
import { otlpSendDialog, otlpSendStore, type OtlpSendTarget } from './send-dialog';

const STORAGE_KEY = 'switchboard.otlp.endpoint';
const MAX_HEADERS = 20;

interface Remembered {
  url: string;
  headerNames: string[];
}

function remembered(): Remembered {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Remembered> | null;
    const url = typeof value?.url === 'string' ? value.url.slice(0, 4096) : '';
    const headerNames = Array.isArray(value?.headerNames) ? value.headerNames.filter((n): n is string => typeof n === 'string').slice(0, MAX_HEADERS).map((n) => n.slice(0, 200)) : [];
    return { url, headerNames };
  } catch {
    return { url: '', headerNames: [] };
  }
}

function remember(value: Remembered): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(value));
  } catch {
    // storage unavailable: the page keeps it for now
  }
}

type Row = { key: number; name: string; value: string };
let nextKey = 1;

export function OtlpSendModal() {
  const { target, nonce } = useStore(otlpSendStore);
  const api = useApi();
  const [url, setUrl] = useState('');
  const [rows, setRows] = useState<Row[]>([]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<OtlpSendResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!target) return;
    const last = remembered();
    setUrl(last.url);
    setRows(last.headerNames.map((name) => ({ key: nextKey++, name, value: '' })));
    setResult(null);
    setError(null);
  }, [target, nonce]);

  const sourceOf = async (t: OtlpSendTarget): Promise<string> => ('sourceId' in t ? t.sourceId : (await api.recordingOpen({ id: t.recordingId })).source);

  const send = async () => {
    if (!target) return;
    setBusy(true);
    setResult(null);
    setError(null);
    const headers = rows.filter((r) => r.name.trim()).map((r) => ({ name: r.name.trim(), value: r.value }));
    remember({ url: url.trim(), headerNames: headers.map((h) => h.name) });
    try {
      const source = await sourceOf(target);
      setResult(await api.otlpSend({ source, url: url.trim(), headers }));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const validUrl = /^https?:\/\/[^\s]+$/i.test(url.trim());
  const setRow = (key: number, patch: Partial<Row>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  return (
    <Modal opened={!!target} onClose={() => otlpSendDialog.close()} title="Send to an OpenTelemetry collector" size="lg">
      <Stack gap="sm" data-testid="otlp-modal">
        <Text size="sm">
          <b>{target?.name}</b> as OpenTelemetry traces: a span per JSON-RPC request, its HTTP exchanges and SSE events as span events, after the semantic conventions for MCP. Secrets are redacted as in every export; message bodies are not sent.
        </Text>
        <TextInput
          label="OTLP/HTTP endpoint"
          description={
            <>
              Protobuf over HTTP, e.g. <Code>http://localhost:4318</Code> (a bare address gets <Code>/v1/traces</Code>).
            </>
          }
          placeholder="http://localhost:4318"
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={url.trim() && !validUrl ? 'An http:// or https:// URL' : undefined}
          data-testid="otlp-endpoint"
        />
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            Headers
          </Text>
          {rows.length === 0 && (
            <Text size="xs" c="dimmed">
              None. A collector that wants auth takes it here (Authorization, an API key header).
            </Text>
          )}
          {rows.map((row, i) => (
            <Group key={row.key} gap="xs" wrap="nowrap" align="flex-start">
              <TextInput placeholder="Name" value={row.name} onChange={(e) => setRow(row.key, { name: e.currentTarget.value })} w={200} aria-label={`Header ${i + 1} name`} data-testid="otlp-header-name" />
              <PasswordInput placeholder="Value" value={row.value} onChange={(e) => setRow(row.key, { value: e.currentTarget.value })} style={{ flex: 1 }} aria-label={`Header ${i + 1} value`} data-testid="otlp-header-value" />
              <ActionIcon variant="subtle" color="gray" mt={6} aria-label={`Remove header ${i + 1}`} onClick={() => setRows((all) => all.filter((r) => r.key !== row.key))}>
                ×
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button size="compact-xs" variant="default" disabled={rows.length >= MAX_HEADERS} onClick={() => setRows((all) => [...all, { key: nextKey++, name: '', value: '' }])} data-testid="otlp-add-header">
              Add header
            </Button>
          </Group>
        </Stack>
        {error && (
          <Alert color="red" title="Not sent" className="pre-wrap" data-testid="otlp-error">
            {error}
          </Alert>
        )}
        {result && (
          <Alert color="green" title="Sent" data-testid="otlp-result">
            {result.spans} span{result.spans === 1 ? '' : 's'} to <Code>{result.endpoint}</Code> in {result.requests} request{result.requests === 1 ? '' : 's'}.
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => otlpSendDialog.close()}>
            Close
          </Button>
          <Button onClick={() => void send()} loading={busy} disabled={!validUrl} data-testid="otlp-send">
            Send
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
