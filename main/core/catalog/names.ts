/**
 * The `server__tool` naming rule, in one place.
 *
 * A namespaced name is `<server slug>__<tool name>`. The slug is the server's name made safe
 * for tool names: lower case, `[a-z0-9_-]`, no leading/trailing dashes, never empty. Two
 * servers whose names make the same slug get the second one (by id order) suffixed with four
 * hex digits of a hash of its id, so names stay stable across restarts.
 *
 * The whole name is capped at 64 characters, the limit many LLM clients put on tool names.
 * A longer name keeps its first 57 characters and ends in `_` + six hex digits of a hash of
 * the full, untruncated name: truncated names never collide with each other (barring a hash
 * collision) and a tool keeps the same name for as long as its server and name do.
 */
import { createHash } from 'node:crypto';

export const SEPARATOR = '__';
export const MAX_NAME_LENGTH = 64;
const HASH_CHARS = 6;

export function serverSlug(serverName: string): string {
  const slug = serverName
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^[-_]+|[-_]+$/g, '');
  return slug || 'server';
}

export function shortHash(text: string, chars = HASH_CHARS): string {
  return createHash('sha256').update(text).digest('hex').slice(0, chars);
}

/** The namespaced name for a slug and a tool name, within the 64-character cap. */
export function namespacedName(slug: string, toolName: string): string {
  const full = `${slug}${SEPARATOR}${toolName}`;
  if (full.length <= MAX_NAME_LENGTH) return full;
  return `${full.slice(0, MAX_NAME_LENGTH - HASH_CHARS - 1)}_${shortHash(full)}`;
}

/** Slugs for a set of servers, unique: the first (by id) keeps the plain slug. */
export function uniqueSlugs(servers: { id: string; name: string }[]): Map<string, string> {
  const byId = [...servers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const taken = new Set<string>();
  const slugs = new Map<string, string>();
  for (const server of byId) {
    let slug = serverSlug(server.name);
    if (taken.has(slug)) slug = `${slug}-${shortHash(server.id, 4)}`;
    taken.add(slug);
    slugs.set(server.id, slug);
  }
  return slugs;
}
