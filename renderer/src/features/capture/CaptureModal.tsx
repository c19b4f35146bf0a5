/**
 * Capture a client (#12): the MCP client configs on this machine, their servers, and whether each
 * goes through Switchboard's proxy. Capture rewrites the chosen entries (a backup first; refused if
 * the file changed since it was shown); Restore puts the file back. HTTP entries need a proxy
 * process running: the command is shown, copyable.
 */
import { Alert, Badge, Button, Checkbox, Code, Group, Loader, Modal, Paper, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import type { CaptureConfig, CaptureResult } from '../../../../contract';
import { useApi } from '../../api/context';
import { copyText } from '../../components/download';

export function CaptureModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const api = useApi();
  const [configs, setConfigs] = useState<CaptureConfig[] | null>(null);
  const [chosen, setChosen] = useState<Record<string, string[]>>({});
  const [result, setResult] = useState<CaptureResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const scan = useCallback(async () => {
    try {
      setConfigs(await api.captureScan());
    } catch (e) {
      setError((e as Error).message);
      setConfigs([]);
    }
  }, [api]);

  useEffect(() => {
    if (!opened) return;
    setResult(null);
    setError(null);
    setChosen({});
    setConfigs(null);
    void scan();
  }, [opened, scan]);

  const run = async (path: string, action: () => Promise<CaptureResult>) => {
    setBusy(path);
    setError(null);
    setResult(null);
    try {
      setResult(await action());
    } catch (e) {
      setError((e as Error).message);
    } finally {
      // Done or refused, the list is read again: a choice made on the old one no longer applies.
      setChosen((c) => ({ ...c, [path]: [] }));
      setBusy(null);
      await scan();
    }
  };

  const present = configs?.filter((c) => c.exists || c.backup) ?? [];
  const absent = configs?.filter((c) => !c.exists && !c.backup) ?? [];

  return (
    <Modal opened={opened} onClose={onClose} title="Capture a client" size="xl">
      <Stack gap="sm" data-testid="capture-modal" data-loaded={configs !== null}>
        <Text size="sm" c="dimmed">
          Capturing rewrites the chosen servers in a client&apos;s config so the client launches them through <Code>switchboard proxy</Code>. Its sessions then show up live under Proxied sessions, in every view. A backup is kept; Restore puts every byte of the file back. Restart the client (or reload its MCP servers) afterwards.
        </Text>
        {error && (
          <Alert color="red" className="pre-wrap" title="Nothing was written" data-testid="capture-error">
            {error}
          </Alert>
        )}
        {result && <ResultView result={result} />}
        {configs === null && <Loader size="sm" />}
        {configs !== null && present.length === 0 && (
          <Alert color="gray" data-testid="capture-none">
            No MCP client configuration was found on this machine.
          </Alert>
        )}
        {present.map((config) => (
          <ConfigCard
            key={config.path}
            config={config}
            chosen={chosen[config.path] ?? []}
            onChoose={(names) => setChosen((c) => ({ ...c, [config.path]: names }))}
            busy={busy === config.path}
            onCapture={() => run(config.path, () => api.captureApply({ path: config.path, names: chosen[config.path] ?? [] }))}
            onRestore={() => run(config.path, () => api.captureRestore({ path: config.path }))}
          />
        ))}
        {absent.length > 0 && (
          <Text size="xs" c="dimmed">
            Not present: {absent.map((c) => c.client).join(', ')}.
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function ConfigCard({
  config,
  chosen,
  onChoose,
  busy,
  onCapture,
  onRestore,
}: {
  config: CaptureConfig;
  chosen: string[];
  onChoose(names: string[]): void;
  busy: boolean;
  onCapture(): void;
  onRestore(): void;
}) {
  const captured = config.entries.filter((e) => e.captured).length;
  const restorable = config.backup !== undefined || captured > 0;
  const toggle = (name: string, on: boolean) => onChoose(on ? [...chosen, name] : chosen.filter((n) => n !== name));
  return (
    <Paper withBorder p="sm" data-testid="capture-config" data-path={config.path}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap={6}>
            <Text fw={600} size="sm">
              {config.client}
            </Text>
            {config.format === 'jsonc' && (
              <Tooltip label="Comments and formatting are kept">
                <Badge size="xs" variant="light" color="gray">
                  JSONC
                </Badge>
              </Tooltip>
            )}
            {captured > 0 && (
              <Badge size="xs" variant="light" color="grape">
                {captured} captured
              </Badge>
            )}
            {config.backup && (
              <Tooltip label={config.backup}>
                <Badge size="xs" variant="outline" color="gray">
                  backup kept
                </Badge>
              </Tooltip>
            )}
          </Group>
          <Text size="xs" c="dimmed" className="mono" style={{ wordBreak: 'break-all' }}>
            {config.path}
          </Text>
        </Stack>
        <Group gap={6} wrap="nowrap">
          {restorable && (
            <Button size="compact-xs" variant="default" onClick={onRestore} loading={busy} data-testid="capture-restore">
              Restore
            </Button>
          )}
          {!config.error && config.exists && (
            <Button size="compact-xs" onClick={onCapture} loading={busy} disabled={chosen.length === 0} data-testid="capture-apply">
              Capture selected{chosen.length ? ` (${chosen.length})` : ''}
            </Button>
          )}
        </Group>
      </Group>
      {config.error && (
        <Alert color="red" mt="xs" p="xs" className="pre-wrap" data-testid="capture-config-error">
          <Text size="xs">{config.error}</Text>
        </Alert>
      )}
      {config.entries.length > 0 && (
        <Table fz="xs" mt="xs" withRowBorders={false} verticalSpacing={2}>
          <Table.Tbody>
            {config.entries.map((entry) => (
              <Table.Tr key={entry.name}>
                <Table.Td w={28}>
                  <Checkbox
                    size="xs"
                    aria-label={`Capture ${entry.name}`}
                    checked={entry.captured || chosen.includes(entry.name)}
                    disabled={entry.captured || entry.problem !== undefined || busy}
                    onChange={(e) => toggle(entry.name, e.currentTarget.checked)}
                    data-testid="capture-entry"
                    data-name={entry.name}
                    data-captured={entry.captured}
                  />
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Text size="xs" fw={500}>
                    {entry.name}
                  </Text>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Badge size="xs" variant="light" color={entry.transport === 'stdio' ? 'blue' : 'teal'} style={{ minWidth: 'max-content' }}>
                    {entry.transport}
                  </Badge>
                </Table.Td>
                <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
                  {entry.problem ? (
                    <Text size="xs" c="red">
                      cannot be captured: {entry.problem}
                    </Text>
                  ) : (
                    <Text size="xs" c="dimmed" className="mono">
                      {entry.target}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  {entry.captured && (
                    <Badge size="xs" color="grape" style={{ minWidth: 'max-content' }} data-testid="capture-captured-badge">
                      captured
                    </Badge>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {!config.error && config.exists && config.entries.length === 0 && (
        <Text size="xs" c="dimmed" mt="xs">
          No servers in this file.
        </Text>
      )}
    </Paper>
  );
}

function ResultView({ result }: { result: CaptureResult }) {
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <Alert color={result.changed.length ? 'green' : 'gray'} data-testid="capture-result" title={result.changed.length ? `Done: ${result.changed.join(', ')}` : 'Nothing changed'}>
      <Stack gap="xs">
        <Text size="sm">{result.message}</Text>
        {result.commands.map((c) => (
          <Stack key={c.name} gap={2}>
            <Text size="xs" fw={600}>
              Run this for {c.name} (keep it running while the client uses it):
            </Text>
            <Group gap={4} wrap="nowrap" align="flex-start">
              <Code block style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="capture-command">
                {c.command}
              </Code>
              <Button size="compact-xs" variant="light" aria-label={`Copy the command for ${c.name}`} onClick={() => copyText(c.command).then(() => setCopied(c.name))} data-testid="capture-command-copy">
                {copied === c.name ? 'Copied' : 'Copy'}
              </Button>
            </Group>
          </Stack>
        ))}
      </Stack>
    </Alert>
  );
}
