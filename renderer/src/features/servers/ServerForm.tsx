/**
 * Add or edit a server: every field of the configuration, validated by the same schema main
 * uses (field errors shown where they belong) before anything is sent.
 */
import { Alert, Button, Checkbox, Collapse, Group, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ServerConfigInput, type ServerConfig } from '../../../../contract';
import { splitCommandLine } from '../../../../contract/command-line';

type Kind = 'stdio' | 'http';

/** "KEY=value" or "Name: value" lines → a record; blank lines ignored. */
function parsePairs(text: string, separator: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(separator);
    if (at <= 0) throw new Error(`"${line.trim()}" should look like ${separator === '=' ? 'KEY=value' : 'Name: value'}`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

const pairs = (record: Record<string, string>, separator: string) =>
  Object.entries(record)
    .map(([k, v]) => `${k}${separator}${v}`)
    .join('\n');

const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export function ServerForm({ initial, submitLabel, onSubmit }: { initial?: ServerConfig; submitLabel: string; onSubmit(input: ServerConfigInput): Promise<void> }) {
  const target = initial?.target;
  const [kind, setKind] = useState<Kind>(target?.type ?? 'stdio');
  const [name, setName] = useState(initial?.name ?? '');
  const [commandLine, setCommandLine] = useState(target?.type === 'stdio' ? [target.command, ...target.args].map(quote).join(' ') : '');
  const [env, setEnv] = useState(target?.type === 'stdio' ? pairs(target.env, '=') : '');
  const [cwd, setCwd] = useState(target?.type === 'stdio' ? (target.cwd ?? '') : '');
  const [url, setUrl] = useState(target?.type === 'http' ? target.url : '');
  const [headers, setHeaders] = useState(target?.type === 'http' ? pairs(target.headers, ': ') : '');
  const [transport, setTransport] = useState<'auto' | 'streamable-http' | 'sse'>(target?.type === 'http' ? target.transport : 'auto');
  const [era, setEra] = useState(initial?.era ?? 'auto');
  const [advanced, setAdvanced] = useState(false);
  const [numbers, setNumbers] = useState({
    requestTimeoutSec: initial?.requestTimeoutSec ?? 60,
    connectTimeoutSec: initial?.connectTimeoutSec ?? 30,
    retries: initial?.retries ?? 3,
    pingIntervalSec: initial?.pingIntervalSec ?? 30,
    idleTimeoutSec: initial?.idleTimeoutSec ?? 0,
  });
  const [disabled, setDisabled] = useState(initial?.disabled ?? false);
  const [elicitation, setElicitation] = useState(initial?.elicitation ?? 'ask');
  const [sampling, setSampling] = useState(initial?.sampling ?? 'ask');
  const [roots, setRoots] = useState((initial?.roots ?? []).map((r) => r.uri).join('\n'));
  const [description, setDescription] = useState(initial?.description ?? '');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setFieldErrors({});
    let input: unknown;
    try {
      if (kind === 'stdio') {
        const [command = '', ...args] = splitCommandLine(commandLine);
        input = { name, target: { type: 'stdio', command, args, env: parsePairs(env, '='), ...(cwd.trim() ? { cwd: cwd.trim() } : {}) } };
      } else {
        input = { name, target: { type: 'http', url, transport, headers: parsePairs(headers, ':') } };
      }
      const rootList = roots
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .map((uri) => ({ uri: uri.startsWith('/') ? `file://${uri}` : uri }));
      input = { ...(input as object), era, ...numbers, disabled, elicitation, sampling, roots: rootList, ...(description.trim() ? { description: description.trim() } : {}) };
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    const parsed = ServerConfigInput.safeParse(input);
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const issue of parsed.error.issues) errors[issue.path.join('.')] ??= issue.message;
      setFieldErrors(errors);
      setError('Fix the highlighted fields.');
      return;
    }
    setBusy(true);
    try {
      await onSubmit(input as ServerConfigInput);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const num = (key: keyof typeof numbers, label: string, min: number, max: number, hint?: string) => (
    <NumberInput
      size="xs"
      label={label}
      description={hint}
      min={min}
      max={max}
      value={numbers[key]}
      onChange={(v) => setNumbers({ ...numbers, [key]: typeof v === 'number' ? v : Number(v) })}
      error={fieldErrors[key]}
      data-testid={`server-${key}`}
    />
  );

  return (
    <form onSubmit={submit} data-testid="add-server-form">
      <Stack gap="xs">
        <SegmentedControl
          size="xs"
          value={kind}
          onChange={(v) => setKind(v as Kind)}
          data={[
            { label: 'stdio (command)', value: 'stdio' },
            { label: 'URL (HTTP)', value: 'http' },
          ]}
          data-testid="add-server-kind"
        />
        <TextInput size="xs" label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldErrors.name} data-testid="add-server-name" required data-autofocus />
        {kind === 'stdio' ? (
          <>
            <TextInput
              size="xs"
              label="Command"
              placeholder="npx -y @modelcontextprotocol/server-everything"
              value={commandLine}
              onChange={(e) => setCommandLine(e.currentTarget.value)}
              error={fieldErrors['target.command']}
              data-testid="add-server-command"
              classNames={{ input: 'mono' }}
            />
            <Textarea size="xs" label="Environment" description="KEY=value per line. Values are secrets: never recorded in traces or exports." autosize minRows={1} maxRows={6} value={env} onChange={(e) => setEnv(e.currentTarget.value)} classNames={{ input: 'mono' }} />
            <TextInput size="xs" label="Working directory" value={cwd} onChange={(e) => setCwd(e.currentTarget.value)} classNames={{ input: 'mono' }} />
          </>
        ) : (
          <>
            <TextInput
              size="xs"
              label="URL"
              placeholder="https://example.com/mcp"
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              error={fieldErrors['target.url']}
              data-testid="add-server-url"
              classNames={{ input: 'mono' }}
            />
            <Select
              size="xs"
              label="Transport"
              value={transport}
              onChange={(v) => setTransport((v as typeof transport) ?? 'auto')}
              data={[
                { value: 'auto', label: 'Auto (Streamable HTTP, then legacy SSE)' },
                { value: 'streamable-http', label: 'Streamable HTTP' },
                { value: 'sse', label: 'HTTP+SSE (legacy)' },
              ]}
              allowDeselect={false}
            />
            <Textarea size="xs" label="Headers" description="Name: value per line (e.g. Authorization: Bearer …). Redacted in traces." autosize minRows={1} maxRows={6} value={headers} onChange={(e) => setHeaders(e.currentTarget.value)} classNames={{ input: 'mono' }} />
          </>
        )}
        <Select
          size="xs"
          label="Protocol era"
          value={era}
          onChange={(v) => setEra((v as typeof era) ?? 'auto')}
          data={[
            { value: 'auto', label: 'Auto (probe 2026-07-28, fall back to initialize)' },
            { value: 'legacy', label: 'Legacy (2025-11-25, initialize + sessions)' },
            { value: 'modern', label: 'Modern (2026-07-28, stateless)' },
          ]}
          allowDeselect={false}
        />
        <Button variant="subtle" size="compact-xs" onClick={() => setAdvanced(!advanced)} data-testid="server-advanced">
          {advanced ? 'Hide' : 'Show'} timeouts, retries, heartbeat, requests from the server
        </Button>
        <Collapse expanded={advanced}>
          <SimpleGrid cols={2} spacing="xs">
            {num('requestTimeoutSec', 'Request timeout (s)', 1, 300)}
            {num('connectTimeoutSec', 'Connect timeout (s)', 1, 300)}
            {num('retries', 'Retries', 0, 5, 'backoff 1 s → 30 s')}
            {num('pingIntervalSec', 'Ping every (s)', 0, 300, '0 = off; legacy era only')}
            {num('idleTimeoutSec', 'Idle disconnect (s)', 0, 86400, '0 = never')}
          </SimpleGrid>
          <SimpleGrid cols={2} spacing="xs" mt="xs">
            <Select
              size="xs"
              label="When it asks for input (elicitation)"
              value={elicitation}
              onChange={(v) => setElicitation((v as typeof elicitation) ?? 'ask')}
              data={[
                { value: 'ask', label: 'Ask me (dialog)' },
                { value: 'accept-defaults', label: 'Accept with defaults' },
                { value: 'decline', label: 'Decline' },
                { value: 'cancel', label: 'Cancel' },
                { value: 'off', label: 'Off (capability not declared)' },
              ]}
              allowDeselect={false}
              data-testid="server-elicitation"
            />
            <Select
              size="xs"
              label="When it asks for a completion (sampling)"
              value={sampling}
              onChange={(v) => setSampling((v as typeof sampling) ?? 'ask')}
              data={[
                { value: 'ask', label: 'Ask me (I write the reply)' },
                { value: 'reject', label: 'Reject' },
                { value: 'off', label: 'Off (capability not declared)' },
              ]}
              allowDeselect={false}
              data-testid="server-sampling"
            />
          </SimpleGrid>
          <Textarea
            size="xs"
            mt="xs"
            label="Roots"
            description="One folder path or URI per line (file:///…). Empty: the roots capability is not declared."
            autosize
            minRows={1}
            maxRows={5}
            value={roots}
            onChange={(e) => setRoots(e.currentTarget.value)}
            error={Object.entries(fieldErrors).find(([k]) => k.startsWith('roots'))?.[1]}
            classNames={{ input: 'mono' }}
            data-testid="server-roots"
          />
          <TextInput size="xs" mt="xs" label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Checkbox size="xs" mt="xs" label="Disabled (keep the entry, never connect)" checked={disabled} onChange={(e) => setDisabled(e.currentTarget.checked)} />
        </Collapse>
        {error && (
          <Alert color="red" p="xs" data-testid="add-server-error" className="pre-wrap">
            {error}
            {Object.entries(fieldErrors)
              .filter(([path]) => !['name', 'target.command', 'target.url', ...Object.keys(numbers)].includes(path))
              .map(([path, message]) => (
                <div key={path}>
                  {path}: {message}
                </div>
              ))}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button size="xs" type="submit" loading={busy} data-testid="add-server-submit">
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
