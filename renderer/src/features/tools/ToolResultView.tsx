/**
 * A tool call's result, by content type. Server output is hostile input: text is text (with
 * hidden characters made visible), images render only from base64 raster image types, audio
 * only from audio types, resource links are read (resources/read, same server) in place only
 * when asked and never followed as URLs, embedded resources render as the Resources view does
 * them, every block's annotations show as chips. Structured content is checked against the
 * tool's output schema and a mismatch is shown, not hidden.
 */
import { Alert, Anchor, Badge, Button, Group, List, Stack, Text, Tooltip } from '@mantine/core';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Result, ToolEntry } from '../../../../contract';
import { safeStringify } from '../../../../contract/bounded-json';
import { JsonTree } from '../../components/JsonTree';
import { copyText, downloadBase64 } from '../../components/download';
import { TEXT_LIMIT, TEXT_PREVIEW } from '../../components/Truncated';
import { ClippedPre, ModeSwitch, PayloadBody, type CutTestIds } from '../../components/PayloadView';
import { useApi } from '../../api/context';
import { navigation } from '../../state/navigation';
import { AnnotationChips } from '../../components/Annotations';
import { base64Size } from '../../components/base64';
import { ContentItemView, asContentItem } from '../../components/ContentView';
import { formatBytes, formatMs } from '../../components/format';
import { ReadResultView, type ReadOutcome } from '../../components/ReadResultView';
import type { CallOutcome } from './call-outcome';
import { SafeLabel, SafeText, hasInvisible, reveal } from '../../components/SafeText';
import { isObject, pathLabel } from './schema';
import classes from './tools.module.css';
import { RawResponse } from './RawResponse';
import { validateAgainst, type Validation } from './validation';

const RASTER = /^image\/(png|jpeg|jpg|gif|webp|bmp|avif)$/i;
const AUDIO = /^audio\/[a-z0-9.+-]+$/i;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

type Block = Record<string, unknown> & { type?: unknown };

const RESULT_MODES = [
  ['rendered', 'Rendered'],
  ['raw', 'Raw'],
] as const;
const STRUCTURED_MODES = [
  ['tree', 'Tree'],
  ['json', 'JSON'],
] as const;
const TEXT_CUT: CutTestIds = { notice: 'tool-result-truncated', showAll: 'tool-result-show-all', save: 'tool-result-save' };

export function ToolResultView({ value, tool }: { value: Result<'callTool'>; tool?: ToolEntry }) {
  const { result } = value;
  const isError = result.isError === true;
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const [mode, setMode] = useState<'rendered' | 'raw'>('rendered');
  return (
    <Stack gap="xs" data-testid="tool-result" data-is-error={isError}>
      <Group justify="space-between" gap={6} wrap="wrap">
        <Group gap={8} wrap="nowrap">
          {isError ? (
            <Badge color="orange" variant="filled" data-testid="tool-result-iserror" style={{ flex: 'none' }}>
              tool reported an error
            </Badge>
          ) : (
            <Badge color="green" variant="light" style={{ flex: 'none' }}>
              result
            </Badge>
          )}
          <Text size="xs" c="dimmed" data-testid="tool-result-duration" style={{ whiteSpace: 'nowrap' }}>
            {formatMs(value.durationMs)} · {content.length} {content.length === 1 ? 'block' : 'blocks'}
            {result.structuredContent !== undefined ? ' + structured' : ''}
          </Text>
        </Group>
        <Group gap={6} wrap="nowrap">
          <ModeSwitch value={mode} onChange={setMode} options={RESULT_MODES} testId="tool-result-mode" />
          <TrafficLink seq={value.traceSeq} />
        </Group>
      </Group>
      {isError && (
        <Alert color="orange" variant="light" p="xs" title="The tool ran and reported an error (isError: true)">
          <Text size="xs">The server answered normally; the tool itself says it failed. Its message is below.</Text>
        </Alert>
      )}
      {mode === 'raw' ? (
        <Stack gap="xs">
          <div className={classes.schemaBox} style={{ maxHeight: 520 }}>
            <JsonTree value={result} expandDepth={3} testId="tool-result-raw-tree" />
          </div>
          <RawResponse requestSeq={value.traceSeq} />
        </Stack>
      ) : (
        <>
          {content.length === 0 && result.structuredContent === undefined && (
            <Text size="sm" c="dimmed">
              The result has no content blocks.
            </Text>
          )}
          {content.slice(0, 500).map((block, i) => (
            <ContentBlock key={i} block={isObject(block) ? (block as Block) : { type: undefined, value: block }} isError={isError} index={i} serverId={value.serverId} />
          ))}
          {content.length > 500 && (
            <Text size="xs" c="dimmed">
              {content.length - 500} more content blocks: see the Raw view.
            </Text>
          )}
          {result.structuredContent !== undefined && <StructuredContent value={result.structuredContent} tool={tool} isError={isError} />}
          {tool?.outputSchema && result.structuredContent === undefined && !isError && (
            <Alert color="yellow" variant="light" p="xs" data-testid="tool-output-mismatch">
              <Text size="xs">The tool declares an output schema but returned no structuredContent.</Text>
            </Alert>
          )}
        </>
      )}
    </Stack>
  );
}

export function TrafficLink({ seq }: { seq?: number }) {
  if (seq === undefined) return null;
  return (
    <Tooltip label={`Show this exchange (trace event #${seq}) in the Traffic view`}>
      <Button size="compact-xs" variant="light" onClick={() => navigation.showTraffic({ kind: 'seq', seq })} data-testid="tool-view-traffic">
        View in Traffic
      </Button>
    </Tooltip>
  );
}

function BlockFrame({ label, actions, children, isError, testId, annotations }: { label: ReactNode; actions?: ReactNode; children: ReactNode; isError?: boolean; testId?: string; annotations?: unknown }) {
  return (
    <div className={`${classes.resultBlock} ${isError ? classes.errorResult : ''}`} data-testid={testId}>
      <div className={classes.resultBlockHeader}>
        <span style={{ minWidth: 0, overflow: 'hidden' }}>{label}</span>
        {actions && (
          <Group gap={4} wrap="nowrap">
            {actions}
          </Group>
        )}
      </div>
      {annotations !== undefined && (
        <div className={classes.resultAnnotations}>
          <AnnotationChips annotations={annotations} testId="tool-result-annotations" />
        </div>
      )}
      {children}
    </div>
  );
}

function ContentBlock({ block, isError, index, serverId }: { block: Block; isError: boolean; index: number; serverId: string }) {
  const type = typeof block.type === 'string' ? block.type : undefined;
  const mime = typeof block.mimeType === 'string' ? block.mimeType : undefined;
  const annotations = block.annotations;
  switch (type) {
    case 'text':
      return typeof block.text === 'string' ? <TextBlock text={block.text} label={`text #${index}`} isError={isError} annotations={annotations} /> : <Unknown block={block} index={index} />;
    case 'image':
      return <MediaBlock kind="image" data={block.data} mime={mime} index={index} annotations={annotations} />;
    case 'audio':
      return <MediaBlock kind="audio" data={block.data} mime={mime} index={index} annotations={annotations} />;
    case 'resource_link':
      return <ResourceLinkBlock block={block} index={index} serverId={serverId} />;
    case 'resource':
      return <EmbeddedResource resource={isObject(block.resource) ? block.resource : {}} index={index} annotations={annotations} />;
    default:
      return <Unknown block={block} index={index} />;
  }
}

/** Text, clipped past TEXT_LIMIT, with copy / show all / save. */
export function TextBlock({ text, label, isError, testId = 'tool-result-text', annotations }: { text: string; label: string; isError?: boolean; testId?: string; annotations?: unknown }) {
  // Looked for in what shows first (a huge text is not scanned whole).
  const hidden = hasInvisible(text.length > TEXT_LIMIT ? text.slice(0, TEXT_PREVIEW) : text);
  return (
    <BlockFrame
      isError={isError}
      annotations={annotations}
      label={
        <Group gap={6} wrap="nowrap">
          <span>{label}</span>
          <span>· {text.length.toLocaleString()} chars</span>
          {hidden && (
            <Tooltip label="Contains control, bidi-override or zero-width characters; they are shown as orange tokens.">
              <Badge size="xs" color="orange" variant="light">
                hidden characters
              </Badge>
            </Tooltip>
          )}
        </Group>
      }
      actions={
        <Button size="compact-xs" variant="subtle" onClick={() => void copyText(text)} data-testid="tool-result-copy">
          Copy
        </Button>
      }
    >
      <ClippedPre text={text} limit={TEXT_LIMIT} preview={TEXT_PREVIEW} render={reveal} filename="tool-result.txt" className={classes.resultText} testId={testId} dir="auto" cutTestIds={TEXT_CUT} />
    </BlockFrame>
  );
}

function MediaBlock({ kind, data, mime, index, annotations }: { kind: 'image' | 'audio'; data: unknown; mime?: string; index: number; annotations?: unknown }) {
  const allowed = kind === 'image' ? RASTER : AUDIO;
  const size = typeof data === 'string' ? base64Size(data) : 0;
  const [saveError, setSaveError] = useState<string | null>(null);
  const save = (base64: string) => {
    try {
      setSaveError(null);
      downloadBase64(`${kind}-${index}${extension(mime)}`, base64);
    } catch (e) {
      setSaveError((e as Error).message);
    }
  };
  let problem: string | undefined;
  if (typeof data !== 'string') problem = 'no base64 data';
  else if (!mime || !allowed.test(mime)) problem = `mimeType ${safeStringify(mime ?? null).slice(0, 60)} is not ${kind === 'image' ? 'a raster image type (SVG can carry script)' : 'an audio type'}`;
  else if (data.length > 50_000_000) problem = 'over 50 MB';
  else if (data.length < 2_000_000 && !BASE64.test(data)) problem = 'the data is not base64';
  const src = problem ? undefined : `data:${mime!.toLowerCase()};base64,${(data as string).replace(/\s+/g, '')}`;
  return (
    <BlockFrame
      annotations={annotations}
      label={
        <span>
          {kind} #{index} · <span className="mono">{(mime ?? 'no mimeType').slice(0, 60)}</span> · {formatBytes(size)}
        </span>
      }
      actions={
        typeof data === 'string' ? (
          <Button size="compact-xs" variant="subtle" onClick={() => save(data)}>
            Download
          </Button>
        ) : undefined
      }
      testId={`tool-result-${kind}`}
    >
      {src && kind === 'image' && <img className={classes.resultImage} src={src} alt={`image content #${index}`} data-testid="tool-result-img" />}
      {src && kind === 'audio' && <audio controls src={src} style={{ display: 'block', margin: 8, maxWidth: 'calc(100% - 16px)' }} data-testid="tool-result-audio-player" />}
      {problem && (
        <Text size="xs" c="orange" p="xs" data-testid="tool-result-media-blocked">
          Not rendered: {problem}.
        </Text>
      )}
      {saveError && (
        <Text size="xs" c="red" p="xs">
          {saveError}
        </Text>
      )}
    </BlockFrame>
  );
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** name · title · uri · mimeType · size · description of a resource link or an embedded resource. */
function ResourceFacts({ name, title, uri, mimeType, size, description }: { name?: string; title?: string; uri: string; mimeType?: string; size?: unknown; description?: string }) {
  const heading = title ?? name;
  return (
    <Stack gap={2}>
      {heading !== undefined && (
        <Text size="sm" fw={500} data-testid="resource-facts-name">
          <SafeLabel text={heading} />
          {title !== undefined && name !== undefined && name !== title && (
            <Text span size="xs" c="dimmed" fw={400}>
              {' · '}
              <SafeLabel text={name} max={120} />
            </Text>
          )}
        </Text>
      )}
      <Text size="xs" className="mono" style={{ overflowWrap: 'anywhere' }} data-testid="resource-facts-uri">
        <SafeText text={uri} clip={500} />
      </Text>
      {(mimeType !== undefined || typeof size === 'number') && (
        <Group gap={6}>
          {mimeType !== undefined && (
            <Badge size="xs" variant="light" color="gray" style={{ textTransform: 'none' }} data-testid="resource-facts-mime">
              {mimeType.slice(0, 80)}
            </Badge>
          )}
          {typeof size === 'number' && Number.isFinite(size) && size >= 0 && (
            <Text size="xs" c="dimmed" data-testid="resource-facts-size">
              {formatBytes(size)} (declared)
            </Text>
          )}
        </Group>
      )}
      {description !== undefined && (
        <Text size="xs" c="dimmed">
          <SafeText text={description} clip={500} />
        </Text>
      )}
    </Stack>
  );
}

/**
 * A resource_link: what it says about the resource, and "Read" — resources/read of its URI on the
 * server that returned it, shown under the link with the Resources view's content view.
 */
function ResourceLinkBlock({ block, index, serverId }: { block: Block; index: number; serverId: string }) {
  const api = useApi();
  const uri = str(block.uri) ?? '';
  const [outcome, setOutcome] = useState<ReadOutcome | null>(null);
  const [reading, setReading] = useState(false);
  const [open, setOpen] = useState(false);
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );
  const read = async () => {
    setOpen(true);
    setReading(true);
    const at = Date.now();
    try {
      const value = await api.readResource({ serverId, uri });
      if (live.current) setOutcome({ ok: true, serverId, uri, at, value });
    } catch (error) {
      if (live.current) setOutcome({ ok: false, serverId, uri, at, message: (error as Error).message });
    } finally {
      if (live.current) setReading(false);
    }
  };
  return (
    <BlockFrame label={<span>resource link #{index}</span>} annotations={block.annotations} testId="tool-result-link">
      <Stack gap={6} p="xs">
        <ResourceFacts name={str(block.name) ?? '(unnamed)'} title={str(block.title)} uri={uri} mimeType={str(block.mimeType)} size={block.size} description={str(block.description)} />
        {/* Under the facts, not in the header: they wrap in a narrow response column. */}
        <Group gap={4} wrap="wrap">
          <Tooltip label="resources/read of this URI on the server that returned it; the content shows here">
            <Button size="compact-xs" variant="light" onClick={() => void read()} loading={reading} disabled={!uri} data-testid="tool-result-link-read">
              {outcome ? 'Read again' : 'Read'}
            </Button>
          </Tooltip>
          {outcome && (
            <Button size="compact-xs" variant="subtle" onClick={() => setOpen(!open)} data-testid="tool-result-link-toggle">
              {open ? 'Hide' : 'Show'}
            </Button>
          )}
          <Tooltip label="Select it in the Resources view (subscribe, re-read)">
            <Button size="compact-xs" variant="subtle" onClick={() => navigation.openResource(serverId, uri)} disabled={!uri} data-testid="tool-result-link-open">
              Open in Resources
            </Button>
          </Tooltip>
          <Button size="compact-xs" variant="subtle" onClick={() => void copyText(uri)}>
            Copy URI
          </Button>
        </Group>
        {open && outcome && (
          <div className={classes.linkRead} data-testid="tool-result-link-content">
            <ReadResultView outcome={outcome} />
          </div>
        )}
        {!outcome && !reading && (
          <Text size="xs" c="dimmed">
            Not read yet: Read asks the server for it (nothing is fetched from the URI itself).
          </Text>
        )}
      </Stack>
    </BlockFrame>
  );
}

/** An embedded resource: its facts, then its contents as the Resources view shows them. */
function EmbeddedResource({ resource, index, annotations }: { resource: Record<string, unknown>; index: number; annotations?: unknown }) {
  const uri = str(resource.uri) ?? '';
  const item = asContentItem(resource);
  return (
    <BlockFrame label={<span>embedded resource #{index}</span>} annotations={annotations} testId="tool-result-resource">
      <Stack gap={6} p="xs">
        <ResourceFacts name={str(resource.name)} title={str(resource.title)} uri={uri} mimeType={str(resource.mimeType)} size={resource.size} description={str(resource.description)} />
        {item ? (
          <ContentItemView item={item} testId={item.text !== undefined ? 'tool-result-resource-text' : 'tool-result-resource-blob'} downloadTestId="tool-result-download" />
        ) : (
          <Text size="xs" c="orange">
            The embedded resource has neither text nor blob.
          </Text>
        )}
      </Stack>
    </BlockFrame>
  );
}

function Unknown({ block, index }: { block: Block; index: number }) {
  return (
    <BlockFrame label={<span>block #{index} · type {safeStringify(block.type ?? null).slice(0, 40)} (not a known content type)</span>}>
      <div style={{ padding: 8 }}>
        <JsonTree value={block} />
      </div>
    </BlockFrame>
  );
}

function StructuredContent({ value, tool, isError }: { value: unknown; tool?: ToolEntry; isError: boolean }) {
  const pretty = useMemo(() => safeStringify(value, { space: 2 }), [value]);
  // A tiny value reads best as JSON; anything bigger as a collapsible tree.
  const [view, setView] = useState<'tree' | 'json'>(() => (pretty.split('\n').length <= 5 ? 'json' : 'tree'));
  const [check, setCheck] = useState<Validation | 'pending' | null>(tool?.outputSchema ? 'pending' : null);
  useEffect(() => {
    if (!tool?.outputSchema) return;
    let live = true;
    void validateAgainst(tool.outputSchema, value).then((v) => live && setCheck(v));
    return () => {
      live = false;
    };
  }, [tool?.outputSchema, value]);
  return (
    <BlockFrame
      isError={isError}
      label={
        <Group gap={6} wrap="nowrap">
          <span>structuredContent</span>
          <OutputCheck check={check} />
        </Group>
      }
      actions={
        <>
          <ModeSwitch value={view} onChange={setView} options={STRUCTURED_MODES} />
          <Button size="compact-xs" variant="subtle" onClick={() => void copyText(pretty)}>
            Copy
          </Button>
        </>
      }
    >
      {check && check !== 'pending' && check.status === 'invalid' && (
        <Alert color="yellow" variant="light" radius={0} p="xs" title="Does not match the tool's output schema" data-testid="tool-output-mismatch">
          <List size="xs" spacing={2}>
            {check.issues.slice(0, 30).map((issue, i) => (
              <List.Item key={i}>
                <span className="mono">{pathLabel(issue.path)}</span>: <SafeText text={issue.message} clip={300} />
              </List.Item>
            ))}
          </List>
          {check.issues.length > 30 && <Text size="xs">…and {check.issues.length - 30} more.</Text>}
        </Alert>
      )}
      <div data-testid="tool-result-structured" style={{ padding: 8, maxHeight: 480, overflow: 'auto' }}>
        <PayloadBody
          mode={view === 'tree' ? 'tree' : 'raw'}
          value={value}
          text={pretty}
          expandDepth={2}
          rawClassName={classes.resultText}
          rawStyle={{ padding: 0, maxHeight: 'none' }}
          limit={TEXT_LIMIT}
          preview={TEXT_PREVIEW}
          filename="structured-content.json"
        />
      </div>
    </BlockFrame>
  );
}

function OutputCheck({ check }: { check: Validation | 'pending' | null }) {
  if (check === null)
    return (
      <Badge size="xs" variant="light" color="gray">
        no output schema
      </Badge>
    );
  if (check === 'pending')
    return (
      <Badge size="xs" variant="light" color="gray">
        checking…
      </Badge>
    );
  if (check.status === 'valid')
    return (
      <Badge size="xs" variant="light" color="green" data-testid="tool-output-valid">
        matches output schema
      </Badge>
    );
  if (check.status === 'invalid')
    return (
      <Badge size="xs" variant="filled" color="yellow" data-testid="tool-output-invalid">
        {check.issues.length} schema {check.issues.length === 1 ? 'error' : 'errors'}
      </Badge>
    );
  return (
    <Tooltip label={check.reason} multiline maw={360}>
      <Badge size="xs" variant="light" color="gray" data-testid="tool-output-unchecked">
        not checked
      </Badge>
    </Tooltip>
  );
}

/** The message of a failed call: server text, clipped, in a scrolling box. */
function CallErrorMessage({ message }: { message: string }) {
  return (
    <Text size="sm" component="div" style={{ maxHeight: 240, overflow: 'auto' }}>
      <SafeText text={message} clip={4_000} testId="tool-error-message" />
    </Text>
  );
}

function CallErrorLinks({ seq, children }: { seq?: number; children?: ReactNode }) {
  return (
    <Group gap="xs">
      <TrafficLink seq={seq} />
      {children}
    </Group>
  );
}

/** A failed call: protocol (JSON-RPC) errors in red, cancellations and timeouts distinct. */
export function CallErrorView({ outcome }: { outcome: Extract<CallOutcome, { kind: 'error' }> }) {
  if (outcome.cancelled) {
    return (
      <Alert color="gray" variant="light" title="Cancelled" data-testid="tool-cancelled">
        <Stack gap={4}>
          <Text size="sm">
            You cancelled the call after {formatMs(outcome.durationMs)}; the server was told (notifications/cancelled, or the request was aborted on the modern era).
          </Text>
          <CallErrorLinks seq={outcome.traceSeq} />
        </Stack>
      </Alert>
    );
  }
  if (outcome.clientRejected) {
    return (
      <Alert color="yellow" variant="light" title="Output schema mismatch: the result was refused" data-testid="tool-error" data-kind="output-schema">
        <Stack gap={6}>
          <CallErrorMessage message={outcome.message} />
          <Text size="xs" c="dimmed">
            The server answered with a result, but the MCP client library checked its structuredContent against the tool's output schema and refused it. The server's actual answer is in the Traffic view. After {formatMs(outcome.durationMs)}.
          </Text>
          <CallErrorLinks seq={outcome.traceSeq} />
        </Stack>
      </Alert>
    );
  }
  const title = outcome.timedOut ? 'Timed out' : outcome.rpcCode !== undefined ? `JSON-RPC error ${outcome.rpcCode}${rpcName(outcome.rpcCode)}` : 'Call failed';
  return (
    <Alert color="red" variant="light" title={title} data-testid="tool-error" data-kind={outcome.timedOut ? 'timeout' : outcome.rpcCode !== undefined ? 'rpc' : 'failed'}>
      <Stack gap={6}>
        <CallErrorMessage message={outcome.message} />
        <Text size="xs" c="dimmed">
          {outcome.rpcCode !== undefined
            ? 'The server (or the client library) rejected the request: this is a protocol error, not a tool result.'
            : outcome.timedOut
              ? 'No answer within the timeout. Raise it below, or tick "reset timeout on progress" for long tools that report progress.'
              : 'The call did not produce a result.'}{' '}
          After {formatMs(outcome.durationMs)}.
        </Text>
        <CallErrorLinks seq={outcome.traceSeq}>
          <Anchor component="button" size="xs" onClick={() => void copyText(outcome.message)}>
            Copy message
          </Anchor>
        </CallErrorLinks>
      </Stack>
    </Alert>
  );
}

function rpcName(code: number): string {
  const names: Record<number, string> = { [-32700]: ' (parse error)', [-32600]: ' (invalid request)', [-32601]: ' (method not found)', [-32602]: ' (invalid params)', [-32603]: ' (internal error)', [-32001]: ' (request timeout)', [-32002]: ' (resource not found)' };
  return names[code] ?? '';
}

function extension(mime?: string): string {
  const sub = mime?.split('/')[1]?.split(/[+;]/)[0]?.replace(/[^a-z0-9]/gi, '');
  return sub ? `.${sub.slice(0, 8)}` : '.bin';
}
