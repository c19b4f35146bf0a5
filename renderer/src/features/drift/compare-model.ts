/**
 * The Compare tab's rules, without React (Node tests import them): which interfaces can be
 * compared (live servers, baselines, the servers of recordings), how a choice is encoded for a
 * select, how changes are grouped by area, what a summary says, and which lines of an old and
 * a new value differ (so the changed part of a schema stands out).
 */
import type { DriftStatus, InterfaceChange, InterfaceDiff, InterfaceRef, InterfaceSnapshot, RecordingSummary, ServerStatus } from '../../../../contract';
import { INTERFACE_AREA_LABELS } from '../../../../contract/recordings';

export interface RefOption {
  value: string;
  label: string;
}

export interface RefGroup {
  group: string;
  items: RefOption[];
}

/** A ref as a select's value (and back). */
export function encodeRef(ref: InterfaceRef): string {
  return ref.kind === 'recording' ? `recording:${ref.id}:${ref.server}` : `${ref.kind}:${ref.serverId}`;
}

export function decodeRef(value: string | null | undefined): InterfaceRef | undefined {
  if (!value) return undefined;
  const [kind, first, ...rest] = value.split(':');
  if ((kind === 'live' || kind === 'baseline') && first) return { kind, serverId: [first, ...rest].join(':') };
  if (kind === 'recording' && first && rest.length) return { kind, id: first, server: rest.join(':') };
  return undefined;
}

/** What can be compared: connected servers, pinned baselines, every recording's servers (newest first). */
export function refGroups(servers: readonly ServerStatus[], drift: readonly DriftStatus[], recordings: readonly RecordingSummary[]): RefGroup[] {
  const nameOf = (id: string) => servers.find((s) => s.id === id)?.name ?? id;
  const live = servers.filter((s) => s.state === 'connected').map((s) => ({ value: encodeRef({ kind: 'live', serverId: s.id }), label: `${s.name} — now` }));
  const baselines = drift
    .filter((d) => d.pinnedAt !== undefined)
    .map((d) => ({ value: encodeRef({ kind: 'baseline', serverId: d.serverId }), label: `${nameOf(d.serverId)} — baseline of ${new Date(d.pinnedAt!).toLocaleString()}` }));
  const recorded = recordings.flatMap((r) =>
    r.servers.map((s) => ({ value: encodeRef({ kind: 'recording', id: r.id, server: s.id }), label: `${s.name} — ${r.live ? 'this session' : `${r.name} (${new Date(r.startedAt).toLocaleString()})`}` })),
  );
  return [
    { group: 'Live servers', items: live },
    { group: 'Baselines', items: baselines },
    { group: 'Recordings', items: recorded },
  ].filter((g) => g.items.length > 0);
}

/** A choice that is no longer offered still shows (the badge's baseline vs live before the list loads). */
export function withChoice(groups: RefGroup[], value: string | undefined, label: string): RefGroup[] {
  if (!value || groups.some((g) => g.items.some((i) => i.value === value))) return groups;
  return [...groups, { group: 'Chosen', items: [{ value, label }] }];
}

export interface ChangeGroup {
  area: InterfaceChange['area'];
  label: string;
  changes: InterfaceChange[];
  breaking: number;
  warning: number;
}

/** Changes by area, in the diff's own (stable) order. */
export function groupChanges(changes: readonly InterfaceChange[]): ChangeGroup[] {
  const groups: ChangeGroup[] = [];
  for (const change of changes) {
    let group = groups.find((g) => g.area === change.area);
    if (!group) {
      group = { area: change.area, label: INTERFACE_AREA_LABELS[change.area], changes: [], breaking: 0, warning: 0 };
      groups.push(group);
    }
    group.changes.push(change);
    if (change.severity === 'breaking') group.breaking++;
    if (change.severity === 'warning') group.warning++;
  }
  return groups;
}

/** "3 changes: 2 breaking, 1 warning" — or the plain statement that there are none. */
export function summarize(diff: InterfaceDiff): string {
  if (diff.same) return 'No differences: the two interfaces are the same.';
  const count = (s: InterfaceChange['severity']) => diff.changes.filter((c) => c.severity === s).length;
  const parts = [count('breaking') && `${count('breaking')} breaking`, count('warning') && `${count('warning')} warning${count('warning') === 1 ? '' : 's'}`, count('info') && `${count('info')} info`].filter(Boolean);
  return `${diff.changes.length} change${diff.changes.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

const LIST_LABELS: Record<InterfaceSnapshot['missing'][number], string> = { tools: 'tools', resources: 'resources', resourceTemplates: 'resource templates', prompts: 'prompts' };

/** Lists one side never saw answered: not compared (and why). */
export function notCompared(a: InterfaceSnapshot, b: InterfaceSnapshot): string | undefined {
  const lists = [...new Set([...a.missing, ...b.missing])];
  if (!lists.length) return undefined;
  const who = (l: (typeof lists)[number]) => (a.missing.includes(l) && b.missing.includes(l) ? 'neither side' : a.missing.includes(l) ? 'A' : 'B');
  return `Not compared: ${lists.map((l) => `${LIST_LABELS[l]} (${who(l)} never saw them answered)`).join(', ')}.`;
}

/** A description changed: the rug-pull warning is said in the UI, not only in the message. */
export function isRugPullRisk(change: InterfaceChange): boolean {
  return change.severity === 'warning' && (change.field === 'description' || change.field?.endsWith('.description') === true || change.area === 'instructions');
}

/** Shown text of a value: strings as they are, the rest as indented JSON; cut at `max` characters. */
export function valueText(value: unknown, max = 20_000): string {
  if (value === undefined) return '';
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}\n… (${(text.length - max).toLocaleString('en-US')} more characters)` : text;
}

/** Each line of both sides, marked when the other side has no such line (the changed part). */
export function markLines(oldText: string, newText: string): { old: { text: string; changed: boolean }[]; new: { text: string; changed: boolean }[] } {
  const oldLines = oldText ? oldText.split('\n') : [];
  const newLines = newText ? newText.split('\n') : [];
  // A JSON line that only gained or lost its trailing comma (an entry added after it) did not change.
  const bare = (line: string) => line.replace(/,$/, '');
  const inOld = new Set(oldLines.map(bare));
  const inNew = new Set(newLines.map(bare));
  return { old: oldLines.map((text) => ({ text, changed: !inNew.has(bare(text)) })), new: newLines.map((text) => ({ text, changed: !inOld.has(bare(text)) })) };
}

type ListKey = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';
const ITEM_KEY: Record<ListKey, string> = { tools: 'name', resources: 'uri', resourceTemplates: 'uriTemplate', prompts: 'name' };

/**
 * What a change shows side by side: for a change inside a schema, the whole schema of both
 * sides (the changed lines marked show where); otherwise the change's own old and new values.
 */
export function shownValues(change: InterfaceChange, a: InterfaceSnapshot, b: InterfaceSnapshot): { old: unknown; new: unknown } {
  const schema = change.field?.startsWith('inputSchema') ? 'inputSchema' : change.field?.startsWith('outputSchema') ? 'outputSchema' : undefined;
  if (!schema || change.area !== 'tools' || change.item === undefined) return { old: change.old, new: change.new };
  const find = (s: InterfaceSnapshot) => s[change.area as ListKey].find((item) => item[ITEM_KEY[change.area as ListKey]] === change.item)?.[schema];
  return { old: find(a), new: find(b) };
}
