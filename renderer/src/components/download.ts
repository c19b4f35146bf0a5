import { decodeBase64 } from './base64';

/** Saves text as a file from the page (works in both carriers; no Node access needed). */
export function downloadText(filename: string, text: string, mimeType = 'text/plain'): void {
  saveBlob(filename, new Blob([text], { type: mimeType }));
}

/** Saves bytes as a file. The type is always generic binary: the browser must never render hostile content. */
export function downloadBytes(filename: string, bytes: Uint8Array): void {
  saveBlob(filename, new Blob([bytes as BlobPart], { type: 'application/octet-stream' }));
}

/** Saves a base64 payload as bytes (generic binary). Throws, saving nothing, when it is not base64. */
export function downloadBase64(filename: string, data: string): void {
  downloadBytes(filename, decodeBase64(data));
}

function saveBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Copies text to the clipboard, falling back to a hidden textarea where the API is unavailable. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}
