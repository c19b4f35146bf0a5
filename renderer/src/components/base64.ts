/**
 * Base64 payloads as bytes and as text, with no page access (the parts of binary.ts a Node test
 * can import): decoding, sizes, which types are text underneath, and a bounded UTF-8 preview.
 */

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

export function baseMime(mimeType: string | undefined): string {
  return (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function decodeBase64(data: string): Uint8Array {
  const clean = cleanBase64(data);
  if (clean === null) throw new Error('The payload is not valid base64.');
  const binary = atob(clean);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
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
