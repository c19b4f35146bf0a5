/**
 * Base64 payloads from servers (resource blobs, image and audio content): which ones may be
 * shown inline, and saving the rest as files. Everything here treats the payload as hostile.
 */
import { baseMime, cleanBase64 } from './base64';

export { base64Size, cleanBase64, decodeBase64, decodeTextPreview, isTextualMime, TEXT_PREVIEW_BYTES, type TextPreview } from './base64';

/** Raster formats the page may show as `<img src="data:…">`. Never SVG (it is a document). */
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/x-icon', 'image/vnd.microsoft.icon']);
const INLINE_AUDIO = new Set(['audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/ogg', 'audio/webm', 'audio/mp4', 'audio/aac', 'audio/flac']);

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

