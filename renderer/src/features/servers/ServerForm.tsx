/**
 * Add or edit a server: every field of the configuration, validated by the same schema main
 * uses (field errors shown where they belong) before anything is sent.
 */
import { Alert, Button, Checkbox, Collapse, Group, NumberInput, PasswordInput, SegmentedControl, Select, SimpleGrid, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
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

/** The OAuth fields → `oauth` for the config, empty fields left out (and no `oauth` at all when nothing is set). */
function oauthSettings(form: { enabled: boolean; clientId: string; clientSecret: string; clientMetadataUrl: string; scope: string }): { oauth?: Record<string, string | boolean> } {
  const oauth: Record<string, string | boolean> = {};
  if (!form.enabled) oauth.disabled = true;
  for (const key of ['clientId', 'clientMetadataUrl', 'scope'] as const) if (form[key].trim()) oauth[key] = form[key].trim();
  // A secret is taken as typed (spaces may belong to it), but never a blank one.
  if (form.clientSecret.trim()) oauth.clientSecret = form.clientSecret;
  return Object.keys(oauth).length ? { oauth } : {};
}

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
  const savedOAuth = target?.type === 'http' ? target.oauth : undefined;
  const [oauth, setOAuth] = useState({
    enabled: !savedOAuth?.disabled,
    clientId: savedOAuth?.clientId ?? '',
    clientSecret: savedOAuth?.clientSecret ?? '',
    clientMetadataUrl: savedOAuth?.clientMetadataUrl ?? '',
    scope: savedOAuth?.scope ?? '',
  });
  const [oauthOpen, setOAuthOpen] = useState(false);
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
  const [connectAtStart, setConnectAtStart] = useState(initial?.connectAtStart ?? true);
  const [apps, setApps] = useState(initial?.apps ?? true);
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
        input = { name, target: { type: 'http', url, transport, headers: parsePairs(headers, ':'), ...oauthSettings(oauth) } };
      }
      const rootList = roots
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .map((uri) => ({ uri })); // paths become file: URIs in the contract's schema (toRootUri)
      input = { ...(input as object), era, ...numbers, disabled, connectAtStart, apps, elicitation, sampling, roots: rootList, ...(description.trim() ? { description: description.trim() } : {}) };
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
            <Button variant="subtle" size="compact-xs" onClick={() => setOAuthOpen(!oauthOpen)} data-testid="server-oauth-toggle" data-expanded={oauthOpen}>
              {oauthOpen ? 'Hide' : 'Show'} OAuth{oauth.enabled ? '' : ' (off)'}
            </Button>
            <Collapse expanded={oauthOpen || Object.keys(fieldErrors).some((k) => k.startsWith('target.oauth'))}>
              <Stack gap="xs" data-testid="server-oauth">
                <Switch
                  size="xs"
                  label="Use OAuth when the server asks"
                  description="On a 401, sign in (discovery, registration, a login window). Off: the 401 is an error. A server with its own Authorization header never signs in."
                  checked={oauth.enabled}
                  onChange={(e) => setOAuth({ ...oauth, enabled: e.currentTarget.checked })}
                  data-testid="server-oauth-enabled"
                />
                <TextInput
                  size="xs"
                  label="Client ID"
                  description="A client registered with the authorization server beforehand. Empty: the metadata document below, else dynamic registration."
                  value={oauth.clientId}
                  onChange={(e) => setOAuth({ ...oauth, clientId: e.currentTarget.value })}
                  error={fieldErrors['target.oauth.clientId']}
                  disabled={!oauth.enabled}
                  classNames={{ input: 'mono' }}
                  data-testid="server-oauth-client-id"
                />
                <PasswordInput
                  size="xs"
                  label="Client secret"
                  description="Only for a confidential client. Stored with the server's settings; redacted in traces and exports."
                  value={oauth.clientSecret}
                  onChange={(e) => setOAuth({ ...oauth, clientSecret: e.currentTarget.value })}
                  error={fieldErrors['target.oauth.clientSecret']}
                  disabled={!oauth.enabled}
                  autoComplete="off"
                  data-testid="server-oauth-client-secret"
                />
                <TextInput
                  size="xs"
                  label="Client ID Metadata Document URL"
                  placeholder="https://example.com/oauth/client.json"
                  description="An https: URL with a path, used as the client id where the authorization server supports it."
                  value={oauth.clientMetadataUrl}
                  onChange={(e) => setOAuth({ ...oauth, clientMetadataUrl: e.currentTarget.value })}
                  error={fieldErrors['target.oauth.clientMetadataUrl']}
                  disabled={!oauth.enabled}
                  classNames={{ input: 'mono' }}
                  data-testid="server-oauth-metadata-url"
                />
                <TextInput
                  size="xs"
                  label="Scope"
                  placeholder="space-separated, e.g. mcp:tools offline_access"
                  description="Empty: what the server's 401 or its metadata asks for."
                  value={oauth.scope}
                  onChange={(e) => setOAuth({ ...oauth, scope: e.currentTarget.value })}
                  error={fieldErrors['target.oauth.scope']}
                  disabled={!oauth.enabled}
                  classNames={{ input: 'mono' }}
                  data-testid="server-oauth-scope"
                />
                {!oauth.enabled && (oauth.clientId || oauth.clientSecret || oauth.clientMetadataUrl || oauth.scope) && (
                  <Text size="xs" c="dimmed">
                    These are kept while OAuth is off.
                  </Text>
                )}
              </Stack>
            </Collapse>
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
        <Switch
          size="xs"
          label="Connect at start"
          description="When it was connected as Switchboard stopped, connect it again at the next start. A server you disconnect stays disconnected."
          checked={connectAtStart}
          disabled={disabled}
          onChange={(e) => setConnectAtStart(e.currentTarget.checked)}
          data-testid="server-connect-at-start"
        />
        <Checkbox
          size="xs"
          label="MCP Apps: declare the ui extension"
          description="Lets the server offer tools with an interface of their own (io.modelcontextprotocol/ui), run in a sandbox in the Apps view."
          checked={apps}
          onChange={(e) => setApps(e.currentTarget.checked)}
          data-testid="server-apps"
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
              .filter(([path]) => !['name', 'target.command', 'target.url', ...Object.keys(numbers)].includes(path) && !path.startsWith('target.oauth.'))
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
