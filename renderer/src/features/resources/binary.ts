/**
 * Base64 payloads from servers (resource blobs, image and audio content): which ones may be
 * shown inline, and saving the rest as files. Everything here treats the payload as hostile.
 */
import { downloadBytes } from '../../components/download';

/** Raster formats the page may show as `<img src="data:…">`. Never SVG (it is a document). */
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/x-icon', 'image/vnd.microsoft.icon']);
const INLINE_AUDIO = new Set(['audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/ogg', 'audio/webm', 'audio/mp4', 'audio/aac', 'audio/flac']);

/** Base64 (standard or URL-safe alphabet), whitespace tolerated. */
export function cleanBase64(data: string): string | null {
  const compact = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return null;
  return compact.replace(/-/g, '+').replace(/_/g, '/');
}

export function base64Size(data: string): number {
  const compact = data.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

function baseMime(mimeType: string | undefined): string {
  return (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A data URI the page may render as an image, or null (SVG, unknown types, bad base64). */
export function inlineImageSrc(mimeType: string | undefined, data: string): string | null {
  const mime = baseMime(mimeType);
  const clean = cleanBase64(data);
  if (!INLINE_IMAGES.has(mime) || clean === null || clean.length === 0) return null;
  return `data:${mime};base64,${clean}`;
}

export function inlineAudioSrc(mimeType: string | undefined, data: string): string | null {
  const mime = baseMime(mimeType);
  const clean = cleanBase64(data);
  if (!INLINE_AUDIO.has(mime) || clean === null || clean.length === 0) return null;
  return `data:${mime};base64,${clean}`;
}

export function decodeBase64(data: string): Uint8Array {
  const clean = cleanBase64(data);
  if (clean === null) throw new Error('The payload is not valid base64.');
  const binary = atob(clean);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A safe file name from a URI's last path segment (never a path, never hidden, never empty). */
export function fileNameFor(uri: string, mimeType?: string): string {
  let last = uri.split(/[?#]/)[0]!.split('/').filter(Boolean).pop() ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    /* keep it encoded */
  }
  let name = last.replace(/[^\w.\- ]+/g, '_').replace(/^[.\s]+/, '').slice(0, 120);
  if (!name) name = 'resource';
  if (!/\.[A-Za-z0-9]{1,8}$/.test(name)) {
    const sub = baseMime(mimeType).split('/')[1]?.replace(/[^a-z0-9]/g, '');
    if (sub) name += `.${sub.slice(0, 8)}`;
    else name += '.bin';
  }
  return name;
}

/** Saves a base64 payload as a file from the page (no Node access needed). */
export function downloadBase64(filename: string, data: string): void {
  downloadBytes(filename, decodeBase64(data));
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Blob types that are text underneath: `text/*`, JSON, XML and their `+json`/`+xml` kin, and a few more. */
export function isTextualMime(mimeType: string | undefined): boolean {
  const mime = baseMime(mimeType);
  if (!mime) return false;
  if (mime.startsWith('text/')) return true;
  if (/\+(json|xml|yaml)$/.test(mime)) return true;
  return /^application\/(json|ld\+json|x-ndjson|ndjson|xml|yaml|x-yaml|toml|javascript|ecmascript|x-sh|sql|graphql|csv|x-www-form-urlencoded)$/.test(mime);
}

/** How much of a text blob is decoded for its preview. */
export const TEXT_PREVIEW_BYTES = 256 * 1024;

export interface TextPreview {
  text: string;
  /** Bytes decoded for the preview, and the blob's whole size. */
  shownBytes: number;
  totalBytes: number;
  /** The decoded part held bytes that are not UTF-8: they show as U+FFFD. */
  invalidUtf8: boolean;
  /** The payload was not base64 at all. */
  error?: string;
}

/**
 * The first `limit` bytes of a base64 blob decoded as UTF-8 (only that much base64 is decoded,
 * whatever the blob's size). A character cut by the limit is left out, not shown as invalid.
 */
export function decodeTextPreview(data: string, limit = TEXT_PREVIEW_BYTES): TextPreview {
  const clean = cleanBase64(data);
  const totalBytes = base64Size(data);
  if (clean === null) return { text: '', shownBytes: 0, totalBytes, invalidUtf8: false, error: 'The payload is not valid base64.' };
  const cut = totalBytes > limit;
  const chars = cut ? Math.floor(limit / 3) * 4 : clean.length;
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64(clean.slice(0, chars));
  } catch {
    return { text: '', shownBytes: 0, totalBytes, invalidUtf8: false, error: 'The payload is not valid base64.' };
  }
  // stream: a multi-byte character cut at the limit waits for bytes that never come (and is dropped).
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes, { stream: cut });
  let invalidUtf8 = false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
  } catch {
    invalidUtf8 = true;
  }
  return { text, shownBytes: bytes.length, totalBytes, invalidUtf8 };
}
