/**
 * One piece of server content, rendered by type: text (with copy), JSON (tree + raw), raster
 * images inline, audio inline, a text-typed blob as a bounded UTF-8 preview, anything else as
 * a download; annotations as chips. Used by Resources (read results), Prompts (embedded
 * resources, image content) and tool results (embedded resources, links read in place). All of
 * it is hostile input: text only, SVG never inline, downloads typed as generic binary.
 */
import { Badge, Button, Group, Paper, Stack, Text, Tooltip } from '@mantine/core';
import { useMemo, useState } from 'react';
import { ClippedPre, ModeSwitch, PayloadBody, TREE_RAW, type CutTestIds, type PayloadMode } from './PayloadView';
import { copyText, downloadBase64, downloadText } from './download';
import { formatBytes } from './format';
import { AnnotationChips } from './Annotations';
import { base64Size, decodeTextPreview, fileNameFor, inlineAudioSrc, inlineImageSrc, isTextualMime, TEXT_PREVIEW_BYTES } from './binary';
import classes from './content.module.css';

const TEXT_CLIP = 200_000;

export interface ContentItem {
  uri?: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  /** The entry's own annotations (audience, priority, lastModified), when it has some. */
  annotations?: unknown;
}

/** Reads `{uri, mimeType, text|blob}` out of an unknown value (a server's content entry). */
export function asContentItem(value: unknown): ContentItem | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const item: ContentItem = {};
  if (typeof v.uri === 'string') item.uri = v.uri;
  if (typeof v.mimeType === 'string') item.mimeType = v.mimeType;
  if (typeof v.text === 'string') item.text = v.text;
  if (typeof v.blob === 'string') item.blob = v.blob;
  if (v.annotations !== undefined) item.annotations = v.annotations;
  if (item.text === undefined && item.blob === undefined) return null;
  return item;
}

export function isJsonMime(mimeType: string | undefined): boolean {
  const mime = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  return mime === 'application/json' || mime === 'text/json' || mime.endsWith('+json');
}

/** Parses text as JSON when the type says JSON, or when it looks like an object/array and parses. */
export function parseJsonText(text: string, mimeType: string | undefined): { ok: true; value: unknown } | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  if (!isJsonMime(mimeType) && !/^[[{]/.test(trimmed)) return null;
  if (trimmed.length > 20_000_000) return null;
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown };
  } catch {
    return null;
  }
}

export function ContentItemView({ item, testId = 'resource-content', downloadTestId = 'content-download' }: { item: ContentItem; testId?: string; downloadTestId?: string }) {
  if (item.text !== undefined) return <TextContent item={item} text={item.text} testId={testId} />;
  return <BlobContent item={item} data={item.blob ?? ''} testId={testId} downloadTestId={downloadTestId} />;
}

function Header({ item, kind, size, children }: { item: ContentItem; kind: string; size: string; children?: React.ReactNode }) {
  return (
    <Group gap={6} wrap="wrap" justify="space-between">
      {/* Wraps in a narrow column (a link read inside a tool result): the URI keeps a readable width. */}
      <Group gap={6} wrap="wrap" style={{ minWidth: 0, flex: '1 1 200px' }}>
        {item.uri !== undefined && (
          <Tooltip label={<span className={classes.hostile}>{item.uri.slice(0, 2000)}</span>} multiline maw={520} openDelay={400}>
            <Text size="xs" className={`mono ${classes.oneLine}`} style={{ flex: '0 1 auto', maxWidth: '100%' }} data-testid="content-uri">
              {item.uri.slice(0, 500)}
            </Text>
          </Tooltip>
        )}
        <Badge size="xs" variant="light" color="gray" style={{ flex: 'none' }} data-testid="content-mime">
          {(item.mimeType ?? 'no mimeType').slice(0, 80)}
        </Badge>
        <Badge size="xs" variant="outline" color="gray" style={{ flex: 'none' }}>
          {kind}
        </Badge>
        <Text size="xs" c="dimmed" style={{ flex: 'none' }}>
          {size}
        </Text>
      </Group>
      <Group gap={4} wrap="nowrap" style={{ flex: 'none', marginLeft: 'auto' }}>
        {children}
      </Group>
    </Group>
  );
}

function ItemAnnotations({ item }: { item: ContentItem }) {
  return item.annotations === undefined ? null : <AnnotationChips annotations={item.annotations} testId="content-annotations" />;
}

function TextContent({ item, text, testId }: { item: ContentItem; text: string; testId: string }) {
  const json = useMemo(() => parseJsonText(text, item.mimeType), [text, item.mimeType]);
  const [mode, setMode] = useState<PayloadMode>('tree');
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void copyText(text).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1200);
    });
  };
  const kind = json ? 'json' : 'text';
  return (
    <Paper withBorder p="xs" radius="sm" data-testid={testId} data-kind={kind}>
      <Stack gap={6}>
        <Header item={item} kind={kind} size={`${text.length.toLocaleString()} chars`}>
          {json && <ModeSwitch value={mode} onChange={setMode} options={TREE_RAW} testId="content-json-mode" />}
          <Button size="compact-xs" variant="default" onClick={copy} data-testid="content-copy">
            {copied ? 'Copied' : 'Copy'}
          </Button>
          <Button size="compact-xs" variant="default" onClick={() => downloadText(fileNameFor(item.uri ?? 'resource', item.mimeType ?? 'text/plain'), text)}>
            Save
          </Button>
        </Header>
        <ItemAnnotations item={item} />
        <PayloadBody mode={mode} value={json?.value} text={text} expandDepth={3} treeTestId="content-json" treeClassName={classes.jsonBox} {...CLIPPED} />
      </Stack>
    </Paper>
  );
}

const CONTENT_CUT: CutTestIds = { notice: 'content-truncated', showAll: 'content-show-all', save: 'content-save' };

/** How a content's text shows: cut past TEXT_CLIP, as hostile text (bidi isolated, wrapped). */
const CLIPPED = { limit: TEXT_CLIP, filename: 'resource.txt', rawClassName: `${classes.pre} ${classes.hostile}`, rawTestId: 'content-text', cutTestIds: CONTENT_CUT };

export function ClippedText({ text, testId = 'content-text', style }: { text: string; testId?: string; style?: React.CSSProperties }) {
  return <ClippedPre text={text} limit={CLIPPED.limit} filename={CLIPPED.filename} className={CLIPPED.rawClassName} style={style} testId={testId} cutTestIds={CLIPPED.cutTestIds} />;
}

function BlobContent({ item, data, testId, downloadTestId }: { item: ContentItem; data: string; testId: string; downloadTestId: string }) {
  const image = inlineImageSrc(item.mimeType, data);
  const audio = image ? null : inlineAudioSrc(item.mimeType, data);
  const textual = !image && !audio && isTextualMime(item.mimeType);
  const [error, setError] = useState<string | null>(null);
  const [broken, setBroken] = useState(false);
  const size = formatBytes(base64Size(data));
  const isSvg = /svg/i.test(item.mimeType ?? '');
  const kind = image && !broken ? 'image' : audio ? 'audio' : textual ? 'text-blob' : 'binary';
  const download = () => {
    try {
      setError(null);
      downloadBase64(fileNameFor(item.uri ?? 'resource', item.mimeType), data);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <Paper withBorder p="xs" radius="sm" data-testid={testId} data-kind={kind}>
      <Stack gap={6}>
        <Header item={item} kind={kind} size={size}>
          <Button size="compact-xs" variant="default" onClick={download} data-testid={downloadTestId}>
            Download
          </Button>
        </Header>
        <ItemAnnotations item={item} />
        {image && !broken && <img src={image} alt={`${item.mimeType ?? 'image'} content`} className={classes.image} onError={() => setBroken(true)} data-testid="content-image" />}
        {image && broken && (
          <Text size="xs" c="orange">
            The data does not decode as {item.mimeType}. Download it to inspect the bytes.
          </Text>
        )}
        {audio && <audio controls src={audio} data-testid="content-audio" />}
        {textual && isSvg && (
          <Text size="xs" c="dimmed" data-testid="content-binary">
            SVG is not shown as a picture (it is a document that can carry scripts and links): its source is below, as text.
          </Text>
        )}
        {textual && <BlobTextPreview data={data} mimeType={item.mimeType} />}
        {!image && !audio && !textual && (
          <Text size="xs" c="dimmed" data-testid="content-binary">
            {isSvg
              ? 'SVG is not shown inline (it is a document that can carry scripts and links). Download it to inspect it.'
              : `Binary content (${size}). Download it to open it with another program.`}
          </Text>
        )}
        {error && (
          <Text size="xs" c="red">
            {error}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** A text-typed blob, decoded as UTF-8 (its first TEXT_PREVIEW_BYTES), saying how much shows. */
function BlobTextPreview({ data, mimeType }: { data: string; mimeType?: string }) {
  const preview = useMemo(() => decodeTextPreview(data), [data]);
  if (preview.error) {
    return (
      <Text size="xs" c="orange" data-testid="content-blob-preview-error">
        No preview: {preview.error} Download it to inspect the bytes.
      </Text>
    );
  }
  const all = preview.shownBytes >= preview.totalBytes;
  return (
    <Stack gap={4} data-testid="content-blob-preview" data-invalid-utf8={preview.invalidUtf8} data-shown-bytes={preview.shownBytes} data-total-bytes={preview.totalBytes}>
      <Text size="xs" c="dimmed" data-testid="content-blob-preview-note">
        {(mimeType ?? '').split(';')[0]!.slice(0, 60)} blob decoded as UTF-8:{' '}
        {all ? `all ${formatBytes(preview.totalBytes)} shown` : `the first ${formatBytes(preview.shownBytes)} of ${formatBytes(preview.totalBytes)} shown (preview limit ${formatBytes(TEXT_PREVIEW_BYTES)}); download it for the rest`}
        .
      </Text>
      {preview.invalidUtf8 && (
        <Text size="xs" c="orange" data-testid="content-blob-invalid-utf8">
          Some bytes are not valid UTF-8: they show as � (U+FFFD). The download has the exact bytes.
        </Text>
      )}
      <ClippedText text={preview.text} testId="content-blob-text" />
    </Stack>
  );
}
