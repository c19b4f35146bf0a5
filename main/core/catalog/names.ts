/**
 * The `server__tool` naming rule, in one place.
 *
 * A namespaced name is `<server slug>__<tool name>`, at most 64 characters (the limit many
 * LLM clients put on tool names). The slug is the server's name made safe for tool names.
 */
export const SEPARATOR = '__';
export const MAX_NAME_LENGTH = 64;

/** Lower-case, `[a-z0-9_-]` only, no leading/trailing dashes; never empty. */
export function serverSlug(serverName: string): string {
  const slug = serverName
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .replace(/_{2,}/g, '_');
  return slug || 'server';
}

export function namespacedName(serverName: string, toolName: string): string {
  return `${serverSlug(serverName)}${SEPARATOR}${toolName}`.slice(0, MAX_NAME_LENGTH);
}
