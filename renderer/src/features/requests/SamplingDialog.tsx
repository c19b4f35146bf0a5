/**
 * A sampling request (`sampling/createMessage`): the server wants a model's reply. Switchboard
 * calls no model — a person reads what the server sent (messages with text, images, audio, tool
 * use and tool results; the system prompt; model preferences; the tools it offers) and writes
 * the assistant's reply: text, or a tool_use block when tools are offered; names the model and
 * the stop reason; approves or rejects.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { Validator } from '@cfworker/json-schema';
import { Accordion, Alert, Badge, Button, Code, Group, NativeSelect, SegmentedControl, Stack, Table, Text, TextInput, Textarea, Title, UnstyledButton } from '@mantine/core';
import { useMemo, useState } from 'react';
import { JsonTree } from '../../components/JsonTree';
import type { AnswerProps } from './ElicitationForm';
import classes from './requests.module.css';
import { ServerText, str, visible } from './safe';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface OfferedTool {
  name: string;
  description?: string;
  inputSchema?: Json;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const AUDIO_TYPES = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/mpeg', 'audio/mp3', 'audio/ogg', 'audio/webm', 'audio/mp4', 'audio/flac']);
const MAX_MEDIA_BASE64 = 8 * 1024 * 1024;
const MAX_MESSAGES = 200;

interface Draft {
  model: string;
  stopReason: string;
  kind: 'text' | 'tool_use';
  text: string;
  tool: string;
  toolUseId: string;
  toolInput: string;
}

const drafts = new Map<string, Draft>();

export function SamplingDialog({ request, onAnswer }: AnswerProps) {
  const params = request.params;
  const messages = Array.isArray(params.messages) ? params.messages.slice(0, MAX_MESSAGES) : [];
  const tools: OfferedTool[] = useMemo(
    () =>
      (Array.isArray(params.tools) ? params.tools : [])
        .filter(isObject)
        .filter((t) => typeof t.name === 'string')
        .map((t) => ({ name: String(t.name), description: typeof t.description === 'string' ? t.description : undefined, inputSchema: isObject(t.inputSchema) ? t.inputSchema : undefined })),
    [params.tools],
  );
  const hints = isObject(params.modelPreferences) && Array.isArray(params.modelPreferences.hints) ? params.modelPreferences.hints.filter(isObject).map((h) => str(h.name)).filter(Boolean) : [];

  const [draft, setDraftState] = useState<Draft>(
    () =>
      drafts.get(request.id) ?? {
        model: 'human',
        stopReason: 'endTurn',
        kind: 'text',
        text: '',
        tool: tools[0]?.name ?? '',
        toolUseId: `toolu_${Math.random().toString(36).slice(2, 12)}`,
        toolInput: exampleInput(tools[0]?.inputSchema),
      },
  );
  const setDraft = (patch: Partial<Draft>) => {
    const next = { ...draft, ...patch };
    drafts.set(request.id, next);
    setDraftState(next);
  };
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const tool = tools.find((t) => t.name === draft.tool);
  const inputCheck = useMemo(() => (draft.kind === 'tool_use' ? checkToolInput(draft.toolInput, tool?.inputSchema) : { ok: true as const }), [draft.kind, draft.toolInput, tool]);

  const approve = async () => {
    setError(null);
    if (!draft.model.trim()) return setError('Name the model that "answered" (any name: no model is called).');
    let content: Json | Json[];
    if (draft.kind === 'text') {
      if (!draft.text.trim()) return setError('Write the assistant reply first.');
      content = { type: 'text', text: draft.text };
    } else {
      if (!tool) return setError('Choose one of the offered tools.');
      if (!inputCheck.ok && inputCheck.input === undefined) return setError(inputCheck.problem);
      content = [{ type: 'tool_use', id: draft.toolUseId.trim() || 'toolu_1', name: tool.name, input: inputCheck.input ?? {} }];
    }
    setBusy('approve');
    const problem = await onAnswer({ kind: 'sampling', action: 'approve', result: { model: draft.model.trim(), stopReason: draft.stopReason || undefined, role: 'assistant', content } });
    setBusy(null);
    if (problem) setError(problem);
    else drafts.delete(request.id);
  };
  const reject = async () => {
    setError(null);
    setBusy('reject');
    const problem = await onAnswer({ kind: 'sampling', action: 'reject', ...(reason.trim() ? { reason: reason.trim() } : {}) });
    setBusy(null);
    if (problem) setError(problem);
    else drafts.delete(request.id);
  };

  const stopReasons = ['endTurn', 'stopSequence', 'maxTokens', ...(tools.length ? ['toolUse'] : [])];

  return (
    <Stack gap="sm" data-testid="sampling-dialog">
      <Text size="sm">
        <b>{request.serverName}</b> asks for a model reply. Switchboard calls no model: you write the reply the server will get.
      </Text>
      <div className={classes.samplingGrid}>
        <SentRequest params={params} tools={tools} hints={hints} messages={messages} />
        <Stack gap="xs" className={classes.replyColumn} data-testid="sampling-reply">
          <Title order={6}>Your reply</Title>
          <TextInput
            size="xs"
            label="Model name"
            description={
              hints.length ? (
                <span>
                  The server would like:{' '}
                  {hints.slice(0, 6).map((h, i) => (
                    <UnstyledButton key={i} onClick={() => setDraft({ model: h })} className="mono" style={{ fontSize: 'inherit', textDecoration: 'underline dotted', marginRight: 6 }}>
                      {visible(h, 60)}
                    </UnstyledButton>
                  ))}
                </span>
              ) : (
                'Any name; reported to the server as the model that answered'
              )
            }
            value={draft.model}
            onChange={(e) => setDraft({ model: e.currentTarget.value })}
            data-testid="sampling-model"
            classNames={{ input: 'mono' }}
          />
          <NativeSelect size="xs" label="Stop reason" value={draft.stopReason} onChange={(e) => setDraft({ stopReason: e.currentTarget.value })} data={stopReasons} data-testid="sampling-stop" />
          {tools.length > 0 && (
            <SegmentedControl
              size="xs"
              fullWidth
              value={draft.kind}
              onChange={(v) => setDraft({ kind: v as Draft['kind'], stopReason: v === 'tool_use' ? 'toolUse' : draft.stopReason === 'toolUse' ? 'endTurn' : draft.stopReason })}
              data={[
                { value: 'text', label: 'Text reply' },
                { value: 'tool_use', label: 'Call a tool (tool_use)' },
              ]}
              data-testid="sampling-reply-kind"
            />
          )}
          {draft.kind === 'text' ? (
            <Textarea size="xs" label="Assistant reply" autosize minRows={5} maxRows={14} value={draft.text} onChange={(e) => setDraft({ text: e.currentTarget.value })} data-testid="sampling-text" placeholder="What the model says…" />
          ) : (
            <>
              <NativeSelect
                size="xs"
                label="Tool"
                value={draft.tool}
                onChange={(e) => {
                  const next = tools.find((t) => t.name === e.currentTarget.value);
                  setDraft({ tool: e.currentTarget.value, toolInput: exampleInput(next?.inputSchema) });
                }}
                data={tools.map((t) => ({ value: t.name, label: visible(t.name, 100) }))}
                data-testid="sampling-tool"
              />
              <TextInput size="xs" label="tool_use id" value={draft.toolUseId} onChange={(e) => setDraft({ toolUseId: e.currentTarget.value })} data-testid="sampling-tool-id" classNames={{ input: 'mono' }} />
              <Textarea
                size="xs"
                label="Input (JSON)"
                autosize
                minRows={3}
                maxRows={12}
                value={draft.toolInput}
                onChange={(e) => setDraft({ toolInput: e.currentTarget.value })}
                classNames={{ input: 'mono' }}
                error={inputCheck.ok ? undefined : inputCheck.problem}
                data-testid="sampling-tool-input"
              />
            </>
          )}
          <TextInput size="xs" label="Reason, if you reject" placeholder="optional, sent to the server" value={reason} onChange={(e) => setReason(e.currentTarget.value)} data-testid="sampling-reject-reason" />
          {error && (
            <Alert color="red" data-testid="answer-error" className="pre-wrap">
              {error}
            </Alert>
          )}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" color="red" onClick={() => void reject()} loading={busy === 'reject'} disabled={busy !== null} data-testid="sampling-reject">
              Reject
            </Button>
            <Button onClick={() => void approve()} loading={busy === 'approve'} disabled={busy !== null} data-testid="sampling-approve">
              Approve and send
            </Button>
          </Group>
        </Stack>
      </div>
    </Stack>
  );
}

/** What the server sent: system prompt, messages, parameters, tools offered. */
function SentRequest({ params, tools, hints, messages }: { params: Json; tools: OfferedTool[]; hints: string[]; messages: unknown[] }) {
  return (
    <Stack gap="sm" miw={0}>
      {typeof params.systemPrompt === 'string' && (
        <div>
          <Text size="xs" fw={600} c="dimmed" mb={2}>
            System prompt
          </Text>
          <div className={classes.message} data-testid="sampling-system">
            <ServerText text={params.systemPrompt} />
          </div>
        </div>
      )}
      <div>
        <Text size="xs" fw={600} c="dimmed" mb={2}>
          Messages ({Array.isArray(params.messages) ? params.messages.length : 0})
        </Text>
        <Stack gap={6} data-testid="sampling-messages">
          {messages.map((m, i) => (
            <MessageView key={i} message={m} />
          ))}
        </Stack>
      </div>
      <Parameters params={params} hints={hints} />
      {tools.length > 0 && (
        <div>
          <Group gap={6} mb={2}>
            <Text size="xs" fw={600} c="dimmed">
              Tools offered ({tools.length})
            </Text>
            {isObject(params.toolChoice) && (
              <Badge size="xs" variant="light" tt="none" data-testid="sampling-tool-choice">
                toolChoice: {visible(str(params.toolChoice.mode) || safeStringify(params.toolChoice), 40)}
              </Badge>
            )}
          </Group>
          <Accordion variant="separated" multiple data-testid="sampling-tools">
            {tools.map((t) => (
              <Accordion.Item key={t.name} value={t.name}>
                <Accordion.Control>
                  <Text size="sm" className="mono">
                    {visible(t.name, 100)}
                  </Text>
                  {t.description && (
                    <Text size="xs" c="dimmed" lineClamp={1}>
                      {visible(t.description, 200)}
                    </Text>
                  )}
                </Accordion.Control>
                <Accordion.Panel>
                  {t.description && <ServerText text={t.description} clip={2_000} />}
                  <JsonTree value={t.inputSchema ?? {}} expandDepth={3} />
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        </div>
      )}
    </Stack>
  );
}

function Parameters({ params, hints }: { params: Json; hints: string[] }) {
  const prefs = isObject(params.modelPreferences) ? params.modelPreferences : {};
  const rows: [string, React.ReactNode][] = [];
  rows.push(['maxTokens', <span className="mono">{str(params.maxTokens)}</span>]);
  if (params.temperature !== undefined) rows.push(['temperature', <span className="mono">{str(params.temperature)}</span>]);
  if (Array.isArray(params.stopSequences)) rows.push(['stopSequences', <span className="mono">{visible(safeStringify(params.stopSequences), 300)}</span>]);
  if (params.includeContext !== undefined) rows.push(['includeContext', <span className="mono">{visible(str(params.includeContext), 40)}</span>]);
  if (hints.length) rows.push(['model hints', <span className="mono">{hints.map((h) => visible(h, 60)).join(', ')}</span>]);
  const priorities = (['intelligencePriority', 'speedPriority', 'costPriority'] as const).filter((k) => typeof prefs[k] === 'number');
  if (priorities.length)
    rows.push([
      'priorities',
      <Group gap={6}>
        {priorities.map((k) => (
          <Badge key={k} variant="light" size="sm" tt="none">
            {k.replace('Priority', '')} {Number(prefs[k]).toFixed(2)}
          </Badge>
        ))}
      </Group>,
    ]);
  if (isObject(params.metadata)) rows.push(['metadata', <JsonTree value={params.metadata} expandDepth={1} />]);
  return (
    <Table withRowBorders={false} verticalSpacing={2} fz="sm" data-testid="sampling-params">
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Td w={150} c="dimmed">
              {k}
            </Table.Td>
            <Table.Td>{v}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function MessageView({ message }: { message: unknown }) {
  const m = isObject(message) ? message : {};
  const role = str(m.role) || '?';
  const blocks = Array.isArray(m.content) ? m.content : [m.content];
  return (
    <div className={classes.bubble} data-role={role} data-testid="sampling-message">
      <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
        {visible(role, 20)}
      </Text>
      <Stack gap={6}>
        {blocks.slice(0, 100).map((b, i) => (
          <Block key={i} block={b} />
        ))}
      </Stack>
    </div>
  );
}

function Block({ block }: { block: unknown }) {
  const b = isObject(block) ? block : {};
  switch (b.type) {
    case 'text':
      return <ServerText text={str(b.text)} testId="sampling-block-text" />;
    case 'image':
    case 'audio': {
      const mime = str(b.mimeType).toLowerCase();
      const data = str(b.data);
      const size = Math.floor((data.length * 3) / 4);
      const ok = data.length <= MAX_MEDIA_BASE64 && /^[A-Za-z0-9+/=\s]*$/.test(data) && (b.type === 'image' ? IMAGE_TYPES.has(mime) : AUDIO_TYPES.has(mime));
      const label = (
        <Text size="xs" c="dimmed">
          {b.type} · {visible(mime || 'no mimeType', 60)} · {size.toLocaleString()} bytes{ok ? '' : ' · not shown (unsupported type or malformed data)'}
        </Text>
      );
      if (!ok) return <div data-testid={`sampling-block-${b.type}`}>{label}</div>;
      return (
        <Stack gap={2} data-testid={`sampling-block-${b.type}`}>
          {b.type === 'image' ? <img className={classes.pixel} src={`data:${mime};base64,${data.replace(/\s/g, '')}`} alt="image sent by the server" /> : <audio controls src={`data:${mime};base64,${data.replace(/\s/g, '')}`} />}
          {label}
        </Stack>
      );
    }
    case 'tool_use':
      return (
        <Stack gap={2} data-testid="sampling-block-tool-use">
          <Text size="xs">
            <Badge size="xs" variant="light" color="grape" mr={6}>
              tool_use
            </Badge>
            <span className="mono">{visible(str(b.name), 100)}</span> <span className="mono" style={{ opacity: 0.6 }}>id {visible(str(b.id), 80)}</span>
          </Text>
          <JsonTree value={b.input ?? {}} expandDepth={2} />
        </Stack>
      );
    case 'tool_result':
      return (
        <Stack gap={2} data-testid="sampling-block-tool-result">
          <Text size="xs">
            <Badge size="xs" variant="light" color={b.isError === true ? 'red' : 'teal'} mr={6}>
              tool_result{b.isError === true ? ' (error)' : ''}
            </Badge>
            <span className="mono" style={{ opacity: 0.6 }}>for {visible(str(b.toolUseId), 80)}</span>
          </Text>
          {(Array.isArray(b.content) ? b.content : []).slice(0, 50).map((c, i) => (
            <Block key={i} block={c} />
          ))}
          {b.structuredContent !== undefined && <JsonTree value={b.structuredContent} expandDepth={1} />}
        </Stack>
      );
    default:
      return <Code block>{safeStringify(block, { space: 2 }).slice(0, 4_000)}</Code>;
  }
}

/** A JSON object with the schema's required properties, to start from. */
function exampleInput(schema: Json | undefined): string {
  if (!schema || !isObject(schema.properties)) return '{}';
  const required = Array.isArray(schema.required) ? schema.required.map(String) : Object.keys(schema.properties);
  const out: Json = {};
  for (const name of required.slice(0, 30)) {
    const p = schema.properties[name];
    const type = isObject(p) ? p.type : undefined;
    out[name] = isObject(p) && p.default !== undefined ? p.default : type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'array' ? [] : type === 'object' ? {} : '';
  }
  return JSON.stringify(out, null, 2);
}

type InputCheck = { ok: true; input?: Json } | { ok: false; problem: string; input?: Json };

/** Parses the tool input and checks it against the tool's schema (a warning: a person may send anything). */
function checkToolInput(text: string, schema: Json | undefined): InputCheck {
  let input: unknown;
  try {
    input = JSON.parse(text || '{}');
  } catch (e) {
    return { ok: false, problem: `Not JSON: ${(e as Error).message}` };
  }
  if (!isObject(input)) return { ok: false, problem: 'The input must be a JSON object.' };
  if (!schema) return { ok: true, input };
  try {
    const result = new Validator(schema as never, '2020-12', false).validate(input);
    if (result.valid) return { ok: true, input };
    const first = result.errors.find((e) => e.keyword !== 'properties') ?? result.errors[0];
    return { ok: false, input, problem: `Does not match the tool's input schema (it can still be sent): ${first ? `${first.instanceLocation} ${first.error}` : 'invalid'}` };
  } catch {
    return { ok: true, input };
  }
}
