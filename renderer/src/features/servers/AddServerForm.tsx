import { Alert, Button, SegmentedControl, Select, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { ServerConfigInput } from '../../../../contract';
import { useApi } from '../../api/context';
import { splitCommandLine } from '../../../../contract/command-line';

type Kind = 'stdio' | 'http';

export function AddServerForm({ onAdded }: { onAdded(): void }) {
  const api = useApi();
  const [kind, setKind] = useState<Kind>('stdio');
  const [name, setName] = useState('');
  const [commandLine, setCommandLine] = useState('');
  const [url, setUrl] = useState('');
  const [transport, setTransport] = useState<'auto' | 'streamable-http' | 'sse'>('auto');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    let input: ServerConfigInput;
    try {
      if (kind === 'stdio') {
        const [command = '', ...args] = splitCommandLine(commandLine);
        input = { name, target: { type: 'stdio', command, args } };
      } else {
        input = { name, target: { type: 'http', url, transport } };
      }
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    setBusy(true);
    try {
      const added = await api.addServer(input);
      setName('');
      setCommandLine('');
      setUrl('');
      onAdded();
      await api.connectServer({ id: added.id });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} data-testid="add-server-form">
      <Stack gap="xs">
        <SegmentedControl
          size="xs"
          value={kind}
          onChange={(v) => setKind(v as Kind)}
          data={[
            { label: 'stdio', value: 'stdio' },
            { label: 'URL', value: 'http' },
          ]}
          data-testid="add-server-kind"
        />
        <TextInput size="xs" label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} data-testid="add-server-name" required />
        {kind === 'stdio' ? (
          <TextInput
            size="xs"
            label="Command"
            placeholder="npx -y @modelcontextprotocol/server-everything"
            value={commandLine}
            onChange={(e) => setCommandLine(e.currentTarget.value)}
            data-testid="add-server-command"
            classNames={{ input: 'mono' }}
          />
        ) : (
          <>
            <TextInput
              size="xs"
              label="URL"
              placeholder="https://example.com/mcp"
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              data-testid="add-server-url"
              classNames={{ input: 'mono' }}
            />
            <Select
              size="xs"
              label="Transport"
              value={transport}
              onChange={(v) => setTransport((v as typeof transport) ?? 'auto')}
              data={[
                { value: 'auto', label: 'Auto (Streamable HTTP, then SSE)' },
                { value: 'streamable-http', label: 'Streamable HTTP' },
                { value: 'sse', label: 'HTTP+SSE (legacy)' },
              ]}
              allowDeselect={false}
            />
          </>
        )}
        {error && (
          <Alert color="red" p="xs" data-testid="add-server-error" className="pre-wrap">
            {error}
          </Alert>
        )}
        <Button size="xs" type="submit" loading={busy} data-testid="add-server-submit">
          Add and connect
        </Button>
      </Stack>
    </form>
  );
}
