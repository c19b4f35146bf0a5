/** Which of a tool's icons may be rendered (see ToolIcon.tsx): small raster `data:` images only. */

const SAFE_DATA_IMAGE = /^data:image\/(png|jpeg|jpg|gif|webp)(;[a-z0-9=.+-]*)*;base64,[A-Za-z0-9+/=\s]*$/i;
const MAX_ICON_CHARS = 100_000;

export type IconVerdict = { safe: true; src: string } | { safe: false; reason: string } | null;

export function judgeIcons(icons: unknown[] | undefined): IconVerdict {
  if (!icons || icons.length === 0) return null;
  const reasons: string[] = [];
  for (const icon of icons.slice(0, 20)) {
    const src = typeof icon === 'object' && icon !== null ? (icon as { src?: unknown }).src : undefined;
    if (typeof src !== 'string') {
      reasons.push('an icon without a src');
      continue;
    }
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(src.trim())?.[1]?.toLowerCase();
    if (scheme === 'data') {
      if (src.length > MAX_ICON_CHARS) reasons.push(`a ${Math.round(src.length / 1000)} KB data URI (over ${MAX_ICON_CHARS / 1000} KB)`);
      else if (/^data:image\/svg/i.test(src)) reasons.push('an SVG image (can carry script)');
      else if (SAFE_DATA_IMAGE.test(src)) return { safe: true, src };
      else reasons.push(`a data URI of type ${src.slice(5, 40).split(/[;,]/)[0] || 'unknown'}`);
    } else if (scheme === 'http' || scheme === 'https') reasons.push('a remote URL (not loaded)');
    else reasons.push(`a ${scheme ?? 'relative'}: URL`);
  }
  return { safe: false, reason: `Icon not shown: ${[...new Set(reasons)].join('; ')}` };
}
