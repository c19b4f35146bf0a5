/**
 * What each server offers to the catalog, kept current by its connection, and the merged catalog
 * over all of them.
 *
 * A `CatalogState` is one server's part: its name, its lists (tools, prompts, resources,
 * templates) and whether the catalog offers them (connected, or idle: using a tool reconnects).
 * Its connection updates it on connect, disconnect, every state change and every `list_changed`;
 * an update that changes nothing is no change.
 *
 * The `CatalogIndex` holds every server's state in the connections' order. The merged catalog
 * (namespaced `server__tool` names, slugs, collisions) is rebuilt only on the first read after some
 * server's state changed, and then only the changed servers' entries; every other read — every
 * tool call — returns the same object. The slugs of every configured server (what a call's
 * `server__` prefix names, connected or not) are recomputed only when a name or the set of servers
 * changes.
 */
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { assemble, serverEntries, type Catalog, type ServerEntries } from './catalog';
import { uniqueSlugs } from './names';

/** What a server listed at connect (and after each list_changed). A list is replaced, never mutated. */
export interface ServerLists {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
}

export const EMPTY_LISTS: ServerLists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

export interface CatalogFacts {
  name: string;
  lists: ServerLists;
  /** The catalog offers this server's entries (it is connected, or idle and reconnects on use). */
  offered: boolean;
}

/** One server's part of the catalog. */
export class CatalogState {
  private facts: CatalogFacts;
  private hooks: { changed(): void; renamed(): void } | undefined;

  constructor(
    readonly serverId: string,
    name: string,
  ) {
    this.facts = { name, lists: EMPTY_LISTS, offered: false };
  }

  get current(): Readonly<CatalogFacts> {
    return this.facts;
  }

  /** Replaces the facts; the index hears of it only when one of them differs. */
  update(next: CatalogFacts): void {
    const { name, lists, offered } = this.facts;
    if (next.name === name && next.lists === lists && next.offered === offered) return;
    this.facts = { name: next.name, lists: next.lists, offered: next.offered };
    this.hooks?.changed();
    if (next.name !== name) this.hooks?.renamed();
  }

  /** The index that holds this state listens through these. */
  attach(hooks: { changed(): void; renamed(): void }): void {
    this.hooks = hooks;
  }
}

/** Every server's CatalogState, and the merged catalog over the offered ones. */
export class CatalogIndex {
  private readonly states = new Map<string, CatalogState>();
  private readonly entries = new Map<string, ServerEntries>();
  private catalog: Catalog | undefined;
  private everySlug: Map<string, string> | undefined;
  /** For tests: how many times the merged catalog and the slugs of every server were computed. */
  readonly counts = { builds: 0, slugs: 0 };

  /** A new state for a server (replacing any earlier one with its id, in its place). */
  track(serverId: string, name: string): CatalogState {
    const state = new CatalogState(serverId, name);
    const mine = () => this.states.get(serverId) === state;
    state.attach({
      changed: () => {
        if (mine()) this.catalog = undefined;
      },
      renamed: () => {
        if (mine()) this.everySlug = undefined;
      },
    });
    this.states.set(serverId, state);
    this.changed();
    return state;
  }

  untrack(serverId: string): void {
    if (!this.states.delete(serverId)) return;
    this.entries.delete(serverId);
    this.changed();
  }

  /** The catalog of the offered servers: the same object until some server's state changes. */
  current(): Catalog {
    if (this.catalog) return this.catalog;
    this.counts.builds++;
    const servers = [...this.states.values()].filter((s) => s.current.offered).map((s) => ({ id: s.serverId, ...s.current }));
    const slugs = uniqueSlugs(servers);
    const perServer = servers.map((server) => {
      const slug = slugs.get(server.id)!;
      const cached = this.entries.get(server.id);
      if (cached && cached.lists === server.lists && cached.name === server.name && cached.slug === slug) return cached;
      const fresh = serverEntries(server, slug);
      this.entries.set(server.id, fresh);
      return fresh;
    });
    for (const id of this.entries.keys()) if (!slugs.has(id)) this.entries.delete(id);
    this.catalog = assemble(perServer, slugs);
    return this.catalog;
  }

  /** The slug of every configured server, offered or not (how a `server__tool` name addresses it). */
  slugsOfAll(): Map<string, string> {
    if (this.everySlug) return this.everySlug;
    this.counts.slugs++;
    this.everySlug = uniqueSlugs([...this.states.values()].map((s) => ({ id: s.serverId, name: s.current.name })));
    return this.everySlug;
  }

  private changed(): void {
    this.catalog = undefined;
    this.everySlug = undefined;
  }
}
