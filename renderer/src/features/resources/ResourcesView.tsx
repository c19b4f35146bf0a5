/**
 * Resources of every connected server, grouped by server: read one and see its contents by
 * type; fill a template's variables (with the server's completions) and read the expanded
 * URI; subscribe to updates and see when a resource changed. The selection, search, list scroll
 * and last reads outlive a switch to another view (state/view-memory). A link from a tool
 * result opens here too, listed or not.
 */
import { ListEmpty, ListHeader, ListSilent } from '../../components/ListHeader';
import { ListStatus } from '../../components/ListStatus';
import { useConnectedList } from '../../state/useConnectedList';
import { Alert, Badge, Button, Grid, Group, Stack, Switch, Text, Title, Tooltip } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Result, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { copyText } from '../../components/download';
import { useNavigation } from '../../state/navigation';
import { useViewState } from '../../state/useViewState';
import { viewMemory, withNewest } from '../../state/view-memory';
import { AnnotationChips } from '../../components/Annotations';
import { formatBytes, plural } from '../../components/format';
import { CompletionInput } from '../../components/CompletionInput';
import { ReadResultView, type ReadOutcome } from '../../components/ReadResultView';
import { GroupedList, type ListGroup } from '../../components/GroupedList';
import { resourceKey, useResourceWatch, type ResourceWatch } from './resource-watch';
import { expandTemplate, templateVariables } from './uri-template';
import classes from '../../components/content.module.css';

type Listing = Result<'listResources'>;
type ResourceItem = Listing['resources'][number];
type TemplateItem = Listing['templates'][number];
type Entry = { kind: 'resource'; key: string; item: ResourceItem } | { kind: 'template'; key: string; item: TemplateItem };

const entryKey = (e: { kind: string; item: { serverId: string; uri?: unknown; uriTemplate?: unknown } }) =>
  `${e.kind}\n${e.item.serverId}\n${String(e.kind === 'resource' ? e.item.uri : e.item.uriTemplate)}`;

const time = (ts: number) => new Date(ts).toLocaleTimeString([], { hour12: false });

export function ResourcesView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const watch = useResourceWatch(api);
  const [query, setQuery] = useViewState('resources.query', '');
  const [selectedKey, setSelectedKey] = useViewState<string | null>('resources.selected', null);
  /** A resource opened from a tool result's link that the server does not list. */
  const [adhoc, setAdhoc] = useViewState<Entry | null>('resources.adhoc', null);
  const [outcomes, setOutcomes] = useViewState<Map<string, ReadOutcome>>('resources.outcomes', () => new Map());
  const [pending, setPending] = useState<Set<string>>(new Set());
  const [templateValues, setTemplateValues] = useViewState<Map<string, Record<string, string>>>('resources.templateValues', () => new Map());

  const connected = servers.filter((s) => s.state === 'connected');

  const { data: listing, error: loadError, reload } = useConnectedList(() => api.listResources(), servers, [api]);

  const entries = useMemo<Entry[]>(() => {
    if (!listing) return [];
    return [
      ...listing.resources.map((item) => ({ kind: 'resource' as const, key: entryKey({ kind: 'resource', item }), item })),
      ...listing.templates.map((item) => ({ kind: 'template' as const, key: entryKey({ kind: 'template', item }), item })),
    ];
  }, [listing]);

  const scope = nav.serverId ? servers.find((s) => s.id === nav.serverId) : undefined;

  const groups = useMemo<ListGroup<Entry>[]>(() => {
    const q = query.trim().toLowerCase();
    const matches = (e: Entry) => {
      if (scope && e.item.serverId !== scope.id) return false;
      if (!q) return true;
      const i = e.item;
      const where = e.kind === 'resource' ? e.item.uri : e.item.uriTemplate;
      return `${i.name} ${i.title ?? ''} ${where} ${i.description ?? ''} ${i.mimeType ?? ''} ${i.serverName}`.toLowerCase().includes(q);
    };
    const byServer = new Map<string, { name: string; resources: Entry[]; templates: Entry[] }>();
    for (const e of entries) {
      if (!matches(e)) continue;
      const group = byServer.get(e.item.serverId) ?? { name: e.item.serverName, resources: [], templates: [] };
      (e.kind === 'resource' ? group.resources : group.templates).push(e);
      byServer.set(e.item.serverId, group);
    }
    return [...byServer.entries()].map(([id, g]) => ({
      id,
      title: g.name,
      aside: (
        <Text span size="xs" c="dimmed" fw={400} style={{ flex: 'none' }}>
          {plural(g.resources.length, 'resource')} · {plural(g.templates.length, 'template')}
        </Text>
      ),
      items: [...g.resources, ...g.templates],
    }));
  }, [entries, query, scope]);

  const visibleCount = groups.reduce((n, g) => n + g.items.length, 0);
  const selected = entries.find((e) => e.key === selectedKey) ?? (adhoc && adhoc.key === selectedKey ? adhoc : null);
  const silent = connected.filter((s) => !entries.some((e) => e.item.serverId === s.id));

  const read = useCallback(
    async (cacheKey: string, serverId: string, uri: string) => {
      setPending((old) => new Set(old).add(cacheKey));
      const started = Date.now();
      try {
        const value = await api.readResource({ serverId, uri });
        setOutcomes((old) => withNewest(old, cacheKey, { ok: true, serverId, uri, value, at: started }));
        watch.seen(resourceKey(serverId, uri));
      } catch (error) {
        setOutcomes((old) => withNewest(old, cacheKey, { ok: false, serverId, uri, message: (error as Error).message, at: started }));
      } finally {
        setPending((old) => {
          const next = new Set(old);
          next.delete(cacheKey);
          return next;
        });
      }
    },
    [api, watch, setOutcomes],
  );

  // "Open in Resources" from a tool result's resource link: once the listing is here, select the
  // listed resource (or an unlisted one of its own) and read it unless it was read already.
  useEffect(() => {
    const focus = nav.resource;
    if (!focus || !listing || viewMemory.get<number>('resources.focusNonce') === focus.nonce) return;
    viewMemory.set('resources.focusNonce', focus.nonce);
    const key = entryKey({ kind: 'resource', item: { serverId: focus.serverId, uri: focus.uri } });
    if (!entries.some((e) => e.key === key)) {
      const server = servers.find((s) => s.id === focus.serverId);
      setAdhoc({ kind: 'resource', key, item: { serverId: focus.serverId, serverName: server?.name ?? focus.serverId, uri: focus.uri, name: focus.uri, unlisted: true } as ResourceItem });
    }
    setSelectedKey(key);
    if (!outcomes.has(key)) void read(key, focus.serverId, focus.uri);
    // Deliberately only these dependencies.
  }, [nav.resource?.nonce, listing]);

  return (
    <Grid gap="md">
      <Grid.Col span={4}>
        <Stack gap="xs">
          <ListHeader query={query} onQuery={setQuery} placeholder="Search resources and templates" label="Search resources" testId="resource-search" onRefresh={reload} refreshTestId="resource-refresh" />
          <ListStatus count={listing ? `${visibleCount} of ${entries.length} from ${connected.length} connected servers` : 'Loading…'} testId="resource-count" scopeName={scope?.name} error={loadError} errorTitle="Could not list resources" />
          <GroupedList
            groups={groups}
            itemKey={(e) => e.key}
            selectedKey={selectedKey}
            onSelect={(e) => setSelectedKey(e.key)}
            memoryKey="resources.list"
            testId="resource-list"
            itemProps={(e) => ({
              'data-testid': e.kind === 'resource' ? 'resource-item' : 'template-item',
              'data-uri': e.kind === 'resource' ? e.item.uri : e.item.uriTemplate,
              'data-server-id': e.item.serverId,
            })}
            renderItem={(e) => (
              <EntryRow
                entry={e}
                watch={watch}
                onReread={(uri) => {
                  setSelectedKey(e.key);
                  void read(e.key, e.item.serverId, uri);
                }}
              />
            )}
            empty={<ListEmpty connected={connected.length} searching={query !== ''} what="resources" />}
          />
          {listing && <ListSilent servers={silent} what="resources" />}
        </Stack>
      </Grid.Col>
      <Grid.Col span={8}>
        {!selected ? (
          <Text c="dimmed" size="sm">
            Select a resource to read it, or a template to fill in its variables.
          </Text>
        ) : selected.kind === 'resource' ? (
          <ResourceDetail
            key={selected.key}
            entry={selected.item}
            server={servers.find((s) => s.id === selected.item.serverId)}
            watch={watch}
            outcome={outcomes.get(selected.key)}
            reading={pending.has(selected.key)}
            onRead={() => read(selected.key, selected.item.serverId, selected.item.uri)}
          />
        ) : (
          <TemplateDetail
            key={selected.key}
            entry={selected.item}
            server={servers.find((s) => s.id === selected.item.serverId)}
            watch={watch}
            values={templateValues.get(selected.key) ?? {}}
            onValues={(values) => setTemplateValues((old) => new Map(old).set(selected.key, values))}
            outcome={outcomes.get(selected.key)}
            reading={pending.has(selected.key)}
            onRead={(uri) => read(selected.key, selected.item.serverId, uri)}
          />
        )}
      </Grid.Col>
    </Grid>
  );
}

function EntryRow({ entry, watch, onReread }: { entry: Entry; watch: ResourceWatch; onReread(uri: string): void }) {
  const { item } = entry;
  const where = entry.kind === 'resource' ? entry.item.uri : entry.item.uriTemplate;
  const key = entry.kind === 'resource' ? resourceKey(item.serverId, entry.item.uri) : null;
  const updatedAt = key ? watch.updated.get(key) : undefined;
  const subscribed = key ? watch.subscribed.has(key) : false;
  return (
    <>
      <div className={classes.itemTop}>
        <span className={`${classes.itemName} ${classes.oneLine}`}>
          <bdi>{(item.title ?? item.name).slice(0, 300)}</bdi>
          {item.title && item.title !== item.name && (
            <span className={classes.itemAlt}>
              {' · '}
              <bdi>{item.name.slice(0, 200)}</bdi>
            </span>
          )}
        </span>
        {entry.kind === 'template' && (
          <Badge size="xs" variant="light" color="grape" style={{ flex: 'none' }}>
            template
          </Badge>
        )}
        {subscribed && (
          <Tooltip label="Subscribed to updates">
            <Badge size="xs" variant="outline" color="orange" style={{ flex: 'none' }}>
              sub
            </Badge>
          </Tooltip>
        )}
        {updatedAt !== undefined && entry.kind === 'resource' && (
          <Tooltip label={`Updated at ${time(updatedAt)} — click to re-read`}>
            <button
              type="button"
              onClick={(event) => {
                event.stopPropagation();
                onReread(entry.item.uri);
              }}
              style={{ display: 'flex', alignItems: 'center', gap: 4, border: 0, background: 'none', padding: 0, cursor: 'pointer', flex: 'none' }}
              data-testid="resource-updated-dot"
            >
              <span className={classes.updatedDot} />
              <Text span size="xs" c="orange">
                {time(updatedAt)}
              </Text>
            </button>
          </Tooltip>
        )}
        {item.mimeType && (
          <Text span size="xs" c="dimmed" style={{ flex: 'none', maxWidth: 110 }} className={classes.oneLine}>
            {item.mimeType.slice(0, 80)}
          </Text>
        )}
      </div>
      <div className={`${classes.itemSub} ${classes.oneLine}`}>
        <bdi>{where.slice(0, 500)}</bdi>
      </div>
    </>
  );
}

function ServerBadge({ name, server }: { name: string; server?: ServerStatus }) {
  return (
    <Badge variant="light" size="sm" style={{ textTransform: 'none' }}>
      {name}
      {server?.era ? ` · ${server.era}` : ''}
    </Badge>
  );
}

function Heading({ title, name, description }: { title: string; name: string; description?: string }) {
  return (
    <>
      <Title order={4} className={classes.hostile} data-testid="resource-title">
        {title.slice(0, 300)}
      </Title>
      {title !== name && (
        <Text size="xs" c="dimmed">
          name: <span className={`mono ${classes.isolate}`}>{name.slice(0, 300)}</span>
        </Text>
      )}
      {description && (
        <Text size="sm" className={classes.hostile} lineClamp={6}>
          {description.slice(0, 5000)}
        </Text>
      )}
    </>
  );
}

function UriLine({ label, uri, testId }: { label: string; uri: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="xs" c="dimmed" style={{ flex: 'none' }}>
        {label}
      </Text>
      <Text size="sm" className={`mono ${classes.hostile}`} style={{ minWidth: 0 }} data-testid={testId}>
        {uri.slice(0, 4000)}
      </Text>
      <Button
        size="compact-xs"
        variant="subtle"
        style={{ flex: 'none' }}
        onClick={() =>
          void copyText(uri).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1200);
          })
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </Button>
    </Group>
  );
}

function SubscribeToggle({ serverId, uri, watch }: { serverId: string; uri: string; watch: ResourceWatch }) {
  const api = useApi();
  const key = resourceKey(serverId, uri);
  const on = watch.subscribed.has(key);
  /** The state asked for while the server has not answered yet (the switch moves at once). */
  const [pending, setPending] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const toggle = async (next: boolean) => {
    setPending(next);
    setError(null);
    try {
      await api.subscribeResource({ serverId, uri, subscribe: next });
      watch.setSubscribed(key, next);
    } catch (e) {
      setError(`${next ? 'resources/subscribe' : 'resources/unsubscribe'} failed: ${(e as Error).message}`);
      // An unsubscribe the server refuses still ends our interest in the updates.
      if (!next) watch.setSubscribed(key, false);
    } finally {
      setPending(null);
    }
  };
  return (
    <Stack gap={2}>
      <Tooltip label="resources/subscribe: the server sends notifications/resources/updated when this resource changes (if it declares resources.subscribe)" multiline maw={320}>
        <Switch
          size="xs"
          label={pending === null ? 'Subscribe to updates' : pending ? 'Subscribing…' : 'Unsubscribing…'}
          checked={pending ?? on}
          disabled={pending !== null}
          onChange={(e) => void toggle(e.currentTarget.checked)}
          data-testid="resource-subscribe"
        />
      </Tooltip>
      {error && (
        <Text size="xs" c="red" className="pre-wrap" data-testid="resource-subscribe-error">
          {error.slice(0, 500)}
        </Text>
      )}
    </Stack>
  );
}

function UpdatedNotice({ serverId, uri, watch, onRead }: { serverId: string; uri: string; watch: ResourceWatch; onRead(): void }) {
  const key = resourceKey(serverId, uri);
  const at = watch.updated.get(key);
  if (at === undefined) return null;
  const count = watch.updateCount.get(key) ?? 1;
  return (
    <Alert color="orange" variant="light" p="xs" data-testid="resource-updated">
      <Group gap="xs" justify="space-between">
        <Group gap={6}>
          <span className={classes.updatedDot} />
          <Text size="sm">
            Updated at {time(at)}
            {count > 1 ? ` (${count} updates since subscribing)` : ''}
          </Text>
        </Group>
        <Button size="compact-xs" color="orange" onClick={onRead}>
          Re-read
        </Button>
      </Group>
    </Alert>
  );
}

function ResourceDetail({
  entry,
  server,
  watch,
  outcome,
  reading,
  onRead,
}: {
  entry: ResourceItem;
  server?: ServerStatus;
  watch: ResourceWatch;
  outcome?: ReadOutcome;
  reading: boolean;
  onRead(): void;
}) {
  const extra = entry as { size?: unknown; annotations?: unknown; unlisted?: boolean };
  const size = typeof extra.size === 'number' && Number.isFinite(extra.size) && extra.size >= 0 ? extra.size : undefined;
  return (
    <Stack gap="sm" data-testid="resource-detail" data-unlisted={extra.unlisted === true}>
      <Group gap="xs">
        <ServerBadge name={entry.serverName} server={server} />
        {entry.mimeType && (
          <Badge size="sm" variant="outline" color="gray" style={{ textTransform: 'none' }}>
            {entry.mimeType.slice(0, 80)}
          </Badge>
        )}
        {size !== undefined && (
          <Tooltip label={`${size.toLocaleString()} bytes, as the server declares it`}>
            <Text size="xs" c="dimmed">
              {formatBytes(size)} (declared)
            </Text>
          </Tooltip>
        )}
      </Group>
      {extra.annotations !== undefined && <AnnotationChips annotations={extra.annotations} testId="resource-annotations" />}
      {extra.unlisted && (
        <Alert color="gray" variant="light" p="xs" data-testid="resource-unlisted">
          <Text size="xs">Opened from a tool result's resource link: the server does not list this URI in resources/list (it may come from a template), so it has no list entry here.</Text>
        </Alert>
      )}
      <Heading title={entry.title ?? entry.name} name={entry.name} description={entry.description} />
      <UriLine label="URI" uri={entry.uri} testId="resource-uri" />
      <Group gap="md" align="center">
        <Button onClick={onRead} loading={reading} data-testid="resource-read">
          {outcome ? 'Read again' : 'Read'}
        </Button>
        <SubscribeToggle serverId={entry.serverId} uri={entry.uri} watch={watch} />
      </Group>
      <UpdatedNotice serverId={entry.serverId} uri={entry.uri} watch={watch} onRead={onRead} />
      {outcome && <ReadResultView outcome={outcome} />}
    </Stack>
  );
}

function TemplateDetail({
  entry,
  server,
  watch,
  values,
  onValues,
  outcome,
  reading,
  onRead,
}: {
  entry: TemplateItem;
  server?: ServerStatus;
  watch: ResourceWatch;
  values: Record<string, string>;
  onValues(values: Record<string, string>): void;
  outcome?: ReadOutcome;
  reading: boolean;
  onRead(uri: string): void;
}) {
  const variables = useMemo(() => templateVariables(entry.uriTemplate), [entry.uriTemplate]);
  const expanded = expandTemplate(entry.uriTemplate, values);
  const missing = variables.filter((v) => v.required && !values[v.name]);
  const filled = (except: string) => Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== except && v !== ''));
  const submit = () => onRead(expanded);
  return (
    <Stack gap="sm" data-testid="template-detail">
      <Group gap="xs">
        <ServerBadge name={entry.serverName} server={server} />
        <Badge size="sm" variant="light" color="grape">
          template
        </Badge>
        {entry.mimeType && (
          <Badge size="sm" variant="outline" color="gray" style={{ textTransform: 'none' }}>
            {entry.mimeType.slice(0, 80)}
          </Badge>
        )}
      </Group>
      <Heading title={entry.title ?? entry.name} name={entry.name} description={entry.description} />
      {(entry as { annotations?: unknown }).annotations !== undefined && <AnnotationChips annotations={(entry as { annotations?: unknown }).annotations} testId="resource-annotations" />}
      <UriLine label="Template" uri={entry.uriTemplate} testId="template-uri" />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack gap="xs">
          {variables.length === 0 && (
            <Text size="xs" c="dimmed">
              This template has no variables.
            </Text>
          )}
          {variables.map((v) => (
            <CompletionInput
              key={v.name}
              serverId={entry.serverId}
              sessionKey={String(server?.since ?? '')}
              completionRef={{ type: 'ref/resource', uri: entry.uriTemplate }}
              argName={v.name}
              label={<span className="mono">{v.name}</span>}
              description={v.required ? undefined : 'optional'}
              required={v.required}
              value={values[v.name] ?? ''}
              onChange={(value) => onValues({ ...values, [v.name]: value })}
              context={filled(v.name)}
              placeholder="type for completions"
              testId={`template-var-${v.name}`}
            />
          ))}
          <UriLine label="URI" uri={expanded} testId="template-expanded" />
          <Group gap="sm">
            <Button type="submit" loading={reading} data-testid="template-read">
              Read
            </Button>
            {missing.length > 0 && (
              <Text size="xs" c="dimmed">
                Not filled: {missing.map((v) => v.name).join(', ')}
              </Text>
            )}
          </Group>
        </Stack>
      </form>
      {outcome && (
        <>
          <Group gap="md">
            <Text size="xs" c="dimmed">
              Last read: <span className={`mono ${classes.isolate}`}>{outcome.uri.slice(0, 500)}</span>
            </Text>
            {outcome.ok && <SubscribeToggle serverId={entry.serverId} uri={outcome.uri} watch={watch} />}
          </Group>
          <UpdatedNotice serverId={entry.serverId} uri={outcome.uri} watch={watch} onRead={() => onRead(outcome.uri)} />
          <ReadResultView outcome={outcome} />
        </>
      )}
    </Stack>
  );
}
