/**
 * The interface diff (#13): two snapshots of a server's interface compared, each change a
 * sentence a person reads ("tool `add`: new required argument `c`") with its area, item, field,
 * severity and the old and new values.
 *
 * Severity is what the change means to a caller: `breaking` (a tool, resource or prompt removed,
 * a new required argument, an argument removed or retyped, accepted values narrowed), `warning`
 * (text a model reads changed — descriptions, instructions: that is how "rug pull" attacks work —
 * a tool now destructive, a capability dropped), `info` (added things, titles, versions).
 *
 * Order-only changes are not changes: lists are compared by name/uri, `required` and `enum` as
 * sets, objects whatever their key order. A list one side never saw (`missing`) is not compared.
 * The order of changes is stable: by area, then item, then field. Pure and bounded (snapshots are
 * depth-bounded; walks stop at a fixed depth; at most MAX_CHANGES changes are listed).
 */
import { isTruncationMarker } from '../../../contract/bounded-json';
import type { InterfaceChange, InterfaceDiff, InterfaceSnapshot } from '../../../contract';
import { LIST_AREAS, compareText, itemKey, type ListArea } from './interface';

export const MAX_CHANGES = 2_000;
/** Nested argument schemas looked into (`customer.name`); deeper differences are one "schema changed". */
const MAX_SCHEMA_NESTING = 6;
const MAX_NAME_CHARS = 120;

type Obj = Record<string, unknown>;
type Severity = InterfaceChange['severity'];

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

export const RUG_PULL_HINT = 'a description that changes without notice is how "rug pull" attacks work: read the new one before trusting it';

/** Compares two snapshots. */
export function diffInterfaces(a: InterfaceSnapshot, b: InterfaceSnapshot): InterfaceDiff {
  const changes: InterfaceChange[] = [];
  const push = (change: InterfaceChange) => changes.push(change);

  // What the server said at initialize.
  if (a.protocolVersion !== b.protocolVersion && a.protocolVersion !== undefined && b.protocolVersion !== undefined) {
    push({ area: 'protocolVersion', change: 'changed', severity: 'warning', message: `protocol version changed from ${a.protocolVersion} to ${b.protocolVersion}`, old: a.protocolVersion, new: b.protocolVersion });
  }
  if (a.serverInfo && b.serverInfo) serverInfoChanges(a.serverInfo, b.serverInfo, push);
  if (a.capabilities && b.capabilities) capabilityChanges(a.capabilities, b.capabilities, push);
  if (a.instructions !== b.instructions) {
    if (a.instructions === undefined) push({ area: 'instructions', change: 'added', severity: 'warning', message: 'the server now gives instructions (a model reads them: read them too)', new: b.instructions });
    else if (b.instructions === undefined) push({ area: 'instructions', change: 'removed', severity: 'info', message: 'the server no longer gives instructions', old: a.instructions });
    else push({ area: 'instructions', change: 'changed', severity: 'warning', message: `instructions changed (a model reads them; ${RUG_PULL_HINT.replace('a description', 'text')})`, old: a.instructions, new: b.instructions });
  }

  for (const { area } of LIST_AREAS) {
    if (a.missing.includes(area) || b.missing.includes(area)) continue;
    listChanges(area, a[area], b[area], push);
  }

  if (changes.length <= MAX_CHANGES) return { same: changes.length === 0, changes };
  const listed = changes.slice(0, MAX_CHANGES);
  listed.push({ area: changes[MAX_CHANGES]!.area, change: 'changed', severity: 'info', message: `… and ${(changes.length - MAX_CHANGES).toLocaleString('en-US')} more changes, not listed` });
  return { same: false, changes: listed };
}

// ---------------------------------------------------------------------------------------
// Lists: tools, resources, templates, prompts

const NOUN: Record<ListArea, string> = { tools: 'tool', resources: 'resource', resourceTemplates: 'resource template', prompts: 'prompt' };

function listChanges(area: ListArea, before: Obj[], after: Obj[], push: (c: InterfaceChange) => void): void {
  const old = keyed(area, before);
  const now = keyed(area, after);
  const keys = [...new Set([...old.keys(), ...now.keys()])].sort(compareText);
  const noun = NOUN[area];
  for (const key of keys) {
    const o = old.get(key);
    const n = now.get(key);
    const name = `${noun} ${quote(key)}`;
    if (!n) {
      push({ area, item: key, change: 'removed', severity: 'breaking', message: `${name} was removed`, old: o });
      continue;
    }
    if (!o) {
      push({ area, item: key, change: 'added', severity: 'info', message: `new ${name}`, new: n });
      continue;
    }
    if (canon(o) === canon(n)) continue;
    const at = (field: string, severity: Severity, message: string, oldValue: unknown, newValue: unknown) =>
      push({ area, item: key, change: 'changed', field, severity, message: `${name}: ${message}`, ...(oldValue !== undefined ? { old: oldValue } : {}), ...(newValue !== undefined ? { new: newValue } : {}) });
    if (area === 'tools') toolChanges(o, n, at);
    else if (area === 'prompts') promptChanges(o, n, at);
    else resourceChanges(o, n, at);
  }
}

function keyed(area: ListArea, items: Obj[]): Map<string, Obj> {
  const map = new Map<string, Obj>();
  for (const item of items) {
    const key = itemKey(area, item);
    if (key !== undefined && !map.has(key)) map.set(key, item);
  }
  return map;
}

type At = (field: string, severity: Severity, message: string, oldValue: unknown, newValue: unknown) => void;

function toolChanges(o: Obj, n: Obj, at: At): void {
  textField('description', o, n, at, 'warning', RUG_PULL_HINT);
  textField('title', o, n, at, 'info');
  if (canon(o.inputSchema) !== canon(n.inputSchema)) {
    const before = count(at);
    schemaChanges('input', isObj(o.inputSchema) ? o.inputSchema : {}, isObj(n.inputSchema) ? n.inputSchema : {}, '', 0, before.at);
    if (before.count() === 0) at('inputSchema', 'info', 'input schema changed', o.inputSchema, n.inputSchema);
  }
  if (canon(o.outputSchema) !== canon(n.outputSchema)) {
    if (o.outputSchema === undefined) at('outputSchema', 'info', 'now declares an output schema', undefined, n.outputSchema);
    else if (n.outputSchema === undefined) at('outputSchema', 'warning', 'no longer declares an output schema (its structured results are no longer promised)', o.outputSchema, undefined);
    else {
      const before = count(at);
      schemaChanges('output', isObj(o.outputSchema) ? o.outputSchema : {}, isObj(n.outputSchema) ? n.outputSchema : {}, '', 0, before.at);
      if (before.count() === 0) at('outputSchema', 'info', 'output schema changed', o.outputSchema, n.outputSchema);
    }
  }
  annotationChanges(o.annotations, n.annotations, at);
  metaChanges(o._meta, n._meta, at, true);
  otherFields(o, n, ['name', 'description', 'title', 'inputSchema', 'outputSchema', 'annotations', '_meta'], at);
}

function promptChanges(o: Obj, n: Obj, at: At): void {
  textField('description', o, n, at, 'warning', RUG_PULL_HINT);
  textField('title', o, n, at, 'info');
  if (canon(o.arguments) !== canon(n.arguments)) {
    const args = (value: unknown) => new Map((Array.isArray(value) ? value : []).filter((x): x is Obj => isObj(x) && typeof x.name === 'string').map((x) => [x.name as string, x]));
    const before = args(o.arguments);
    const after = args(n.arguments);
    const names = [...new Set([...before.keys(), ...after.keys()])].sort(compareText);
    let told = 0;
    for (const name of names) {
      const was = before.get(name);
      const is = after.get(name);
      const field = `arguments.${name}`;
      if (!is) at(field, 'breaking', `argument ${quote(name)} was removed`, was, undefined);
      else if (!was) at(field, is.required === true ? 'breaking' : 'info', is.required === true ? `new required argument ${quote(name)}` : `new optional argument ${quote(name)}`, undefined, is);
      else if (canon(was) !== canon(is)) {
        if (is.required === true && was.required !== true) at(field, 'breaking', `argument ${quote(name)} is now required`, was, is);
        else if (was.required === true && is.required !== true) at(field, 'info', `argument ${quote(name)} is no longer required`, was, is);
        else if (canon(was.description) !== canon(is.description)) at(field, 'info', `argument ${quote(name)}: description changed`, was.description, is.description);
        else at(field, 'info', `argument ${quote(name)} changed`, was, is);
      } else continue;
      told++;
    }
    if (told === 0) at('arguments', 'info', 'arguments changed', o.arguments, n.arguments);
  }
  metaChanges(o._meta, n._meta, at, false);
  otherFields(o, n, ['name', 'description', 'title', 'arguments', '_meta'], at);
}

function resourceChanges(o: Obj, n: Obj, at: At): void {
  textField('description', o, n, at, 'warning', RUG_PULL_HINT);
  textField('name', o, n, at, 'info');
  textField('title', o, n, at, 'info');
  if (canon(o.mimeType) !== canon(n.mimeType)) at('mimeType', 'warning', `MIME type changed from ${show(o.mimeType)} to ${show(n.mimeType)}`, o.mimeType, n.mimeType);
  metaChanges(o._meta, n._meta, at, true);
  otherFields(o, n, ['uri', 'uriTemplate', 'description', 'name', 'title', 'mimeType', '_meta'], at);
}

function textField(field: string, o: Obj, n: Obj, at: At, severity: Severity, hint?: string): void {
  if (canon(o[field]) === canon(n[field])) return;
  const what = o[field] === undefined ? 'added' : n[field] === undefined ? 'removed' : 'changed';
  at(field, severity, `${field} ${what}${hint && n[field] !== undefined ? ` (${hint})` : ''}`, o[field], n[field]);
}

/** Hints that make a tool more dangerous than it said it was. */
const RISKIER: Record<string, (value: unknown) => boolean> = {
  readOnlyHint: (v) => v !== true,
  destructiveHint: (v) => v === true,
  openWorldHint: (v) => v === true,
  idempotentHint: (v) => v !== true,
};

function annotationChanges(before: unknown, after: unknown, at: At): void {
  if (canon(before) === canon(after)) return;
  const o = isObj(before) ? before : {};
  const n = isObj(after) ? after : {};
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].sort(compareText);
  for (const key of keys) {
    if (canon(o[key]) === canon(n[key])) continue;
    const riskier = RISKIER[key] && RISKIER[key](n[key]) && !RISKIER[key](o[key]) && key !== 'idempotentHint';
    at(`annotations.${key}`, riskier ? 'warning' : 'info', `annotation ${quote(key)} changed from ${show(o[key])} to ${show(n[key])}${riskier ? ' (the tool now says it is riskier than before)' : ''}`, o[key], n[key]);
  }
}

function metaChanges(before: unknown, after: unknown, at: At, ui: boolean): void {
  if (canon(before) === canon(after)) return;
  const o = isObj(before) ? before : {};
  const n = isObj(after) ? after : {};
  if (ui && canon(o.ui) !== canon(n.ui)) at('_meta.ui', 'warning', o.ui === undefined ? 'now has an app (`_meta.ui`)' : n.ui === undefined ? 'no longer has an app (`_meta.ui`)' : 'its app (`_meta.ui`) changed', o.ui, n.ui);
  const rest = (m: Obj) => Object.fromEntries(Object.entries(m).filter(([k]) => !ui || k !== 'ui'));
  if (canon(rest(o)) !== canon(rest(n))) at('_meta', 'info', '`_meta` changed', before, after);
}

function otherFields(o: Obj, n: Obj, known: string[], at: At): void {
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].filter((k) => !known.includes(k)).sort(compareText);
  for (const key of keys) if (canon(o[key]) !== canon(n[key])) at(key, 'info', `${quote(key)} ${o[key] === undefined ? 'added' : n[key] === undefined ? 'removed' : 'changed'}`, o[key], n[key]);
}

/** Counts the changes told through it. */
function count(at: At): { at: At; count(): number } {
  let n = 0;
  return {
    at: (...args) => {
      n++;
      at(...args);
    },
    count: () => n,
  };
}

// ---------------------------------------------------------------------------------------
// JSON Schemas: arguments in, structured results out

/** Keys a property's comparison explains itself; a difference elsewhere is "schema changed". */
const EXPLAINED = ['type', 'enum', 'description', 'properties', 'required', 'items'];

function schemaChanges(mode: 'input' | 'output', o: Obj, n: Obj, path: string, depth: number, at: At): void {
  const field = mode === 'input' ? 'inputSchema' : 'outputSchema';
  const noun = mode === 'input' ? 'argument' : 'output field';
  const props = (s: Obj) => (isObj(s.properties) ? s.properties : {});
  const required = (s: Obj) => new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
  const oldProps = props(o);
  const newProps = props(n);
  const oldReq = required(o);
  const newReq = required(n);
  const names = [...new Set([...Object.keys(oldProps), ...Object.keys(newProps)])].sort(compareText);
  for (const key of names) {
    const name = path + key;
    const was = oldProps[key];
    const is = newProps[key];
    const where = `${field}.properties.${name}`;
    if (is === undefined) {
      at(where, 'breaking', mode === 'input' ? `${noun} ${quote(name)} was removed` : `${noun} ${quote(name)} was removed from the structured result`, was, undefined);
      continue;
    }
    if (was === undefined) {
      if (mode === 'input' && newReq.has(key)) at(where, 'breaking', `new required ${noun} ${quote(name)}`, undefined, is);
      else at(where, 'info', `new ${mode === 'input' ? 'optional ' : ''}${noun} ${quote(name)}`, undefined, is);
      continue;
    }
    if (mode === 'input' && newReq.has(key) && !oldReq.has(key)) at(`${field}.required`, 'breaking', `${noun} ${quote(name)} is now required`, [...oldReq].sort(compareText), [...newReq].sort(compareText));
    if (mode === 'input' && oldReq.has(key) && !newReq.has(key)) at(`${field}.required`, 'info', `${noun} ${quote(name)} is no longer required`, [...oldReq].sort(compareText), [...newReq].sort(compareText));
    if (mode === 'output' && oldReq.has(key) && !newReq.has(key)) at(`${field}.required`, 'warning', `${noun} ${quote(name)} is no longer always present`, [...oldReq].sort(compareText), [...newReq].sort(compareText));
    if (canon(was) === canon(is)) continue;
    const w = isObj(was) ? was : {};
    const i = isObj(is) ? is : {};
    const oldTypes = types(w);
    const newTypes = types(i);
    if (canon(oldTypes) !== canon(newTypes)) {
      // A caller breaks when fewer types are accepted (input); a reader, when other types may come back (output).
      const breaking = mode === 'input' ? newTypes.length > 0 && (oldTypes.length === 0 || !oldTypes.every((t) => newTypes.includes(t))) : oldTypes.length > 0 && !newTypes.every((t) => oldTypes.includes(t));
      at(`${where}.type`, breaking ? 'breaking' : 'info', `${noun} ${quote(name)}: type changed from ${typeWords(oldTypes)} to ${typeWords(newTypes)}`, was, is);
    }
    if (canon(w.enum) !== canon(i.enum) && (Array.isArray(w.enum) || Array.isArray(i.enum))) {
      const before = (Array.isArray(w.enum) ? w.enum : []).map(canon);
      const after = (Array.isArray(i.enum) ? i.enum : []).map(canon);
      const dropped = before.filter((v) => !after.includes(v));
      const added = after.filter((v) => !before.includes(v));
      // Fewer accepted values breaks callers (input); more possible values breaks readers (output).
      const narrowing = mode === 'input' ? (!Array.isArray(w.enum) ? true : dropped.length > 0) : !Array.isArray(i.enum) ? false : added.length > 0;
      const parts = [dropped.length ? `no longer ${mode === 'input' ? 'accepts' : 'returns'} ${dropped.slice(0, 10).join(', ')}` : '', added.length ? `now ${mode === 'input' ? 'accepts' : 'may return'} ${added.slice(0, 10).join(', ')}` : ''].filter(Boolean);
      at(`${where}.enum`, narrowing ? 'breaking' : 'info', `${noun} ${quote(name)}: ${parts.join('; ') || 'allowed values changed'}`, w.enum, i.enum);
    }
    if (canon(w.description) !== canon(i.description)) at(`${where}.description`, mode === 'input' ? 'warning' : 'info', `${noun} ${quote(name)}: description changed${mode === 'input' ? ` (${RUG_PULL_HINT})` : ''}`, w.description, i.description);
    if (depth < MAX_SCHEMA_NESTING) {
      if (isObj(w.properties) || isObj(i.properties)) schemaChanges(mode, w, i, `${name}.`, depth + 1, at);
      if (isObj(w.items) && isObj(i.items) && canon(w.items) !== canon(i.items)) {
        const before = count(at);
        schemaChanges(mode, w.items, i.items, `${name}[].`, depth + 1, before.at);
        if (before.count() === 0) rest(w.items, i.items, `${where}.items`, `${noun} ${quote(name)}: item schema changed`, at);
      }
    } else if (canon(w.properties) !== canon(i.properties) || canon(w.items) !== canon(i.items)) at(where, 'info', `${noun} ${quote(name)}: nested schema changed`, was, is);
    rest(w, i, where, `${noun} ${quote(name)}: schema changed`, at, EXPLAINED);
  }
  // The schema's own keywords (additionalProperties, $defs, …); a nested schema's are its property's (above).
  if (depth === 0) rest(o, n, field, `${mode} schema changed`, at, ['properties', 'required']);
}

/** The keys other than `skip` that differ, said once. */
function rest(o: Obj, n: Obj, field: string, message: string, at: At, skip: string[] = []): void {
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].filter((k) => !skip.includes(k) && canon(o[k]) !== canon(n[k])).sort(compareText);
  if (keys.length === 0) return;
  const pick = (s: Obj) => Object.fromEntries(keys.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
  at(field, 'info', `${message}: ${keys.slice(0, 8).map(quote).join(', ')}${keys.length > 8 ? ` and ${keys.length - 8} more` : ''}`, pick(o), pick(n));
}

function types(schema: Obj): string[] {
  const t = schema.type;
  const list = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
  return [...new Set(list)].sort(compareText);
}

function typeWords(list: string[]): string {
  return list.length ? list.join(' | ') : 'any';
}

// ---------------------------------------------------------------------------------------
// What the server said at initialize

function serverInfoChanges(o: Obj, n: Obj, push: (c: InterfaceChange) => void): void {
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].sort((x, y) => rank(x) - rank(y) || compareText(x, y));
  for (const key of keys) {
    if (canon(o[key]) === canon(n[key])) continue;
    const severity: Severity = key === 'name' ? 'warning' : 'info';
    const message =
      typeof o[key] === 'string' && typeof n[key] === 'string' && String(o[key]).length < 200 && String(n[key]).length < 200
        ? `server ${key} changed from ${show(o[key])} to ${show(n[key])}`
        : `server ${key} ${o[key] === undefined ? 'added' : n[key] === undefined ? 'removed' : 'changed'}`;
    push({ area: 'serverInfo', field: key, change: 'changed', severity, message, ...(o[key] !== undefined ? { old: o[key] } : {}), ...(n[key] !== undefined ? { new: n[key] } : {}) });
  }
}

function rank(key: string): number {
  const order = ['name', 'version', 'title'];
  return order.includes(key) ? order.indexOf(key) : order.length;
}

function capabilityChanges(o: Obj, n: Obj, push: (c: InterfaceChange) => void): void {
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].sort(compareText);
  for (const key of keys) {
    if (canon(o[key]) === canon(n[key])) continue;
    if (o[key] === undefined) push({ area: 'capabilities', item: key, change: 'added', severity: 'info', message: `the server now declares ${quote(key)}`, new: n[key] });
    else if (n[key] === undefined) push({ area: 'capabilities', item: key, change: 'removed', severity: 'warning', message: `the server no longer declares ${quote(key)}`, old: o[key] });
    else push({ area: 'capabilities', item: key, change: 'changed', severity: 'info', message: `capability ${quote(key)} changed`, old: o[key], new: n[key] });
  }
}

// ---------------------------------------------------------------------------------------

/** Keys whose arrays are sets (order means nothing). */
const SET_KEYS = new Set(['required', 'enum', 'type']);
const CANON_DEPTH = 80;

/**
 * A value as text for comparison: keys sorted, set-like arrays (`required`, `enum`, `type`)
 * sorted, a cut subtree (truncation marker) equal to any other cut subtree.
 */
export function canon(value: unknown): string {
  return canonAt(value, 0, false);
}

function canonAt(value: unknown, depth: number, asSet: boolean): string {
  if (value === undefined) return 'undefined';
  if (!isObj(value) && !Array.isArray(value)) return JSON.stringify(value) ?? 'null';
  if (depth > CANON_DEPTH || isTruncationMarker(value)) return '"\u0000cut"';
  if (Array.isArray(value)) {
    const parts = value.map((v) => canonAt(v, depth + 1, false));
    if (asSet) parts.sort(compareText);
    return `[${parts.join(',')}]`;
  }
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort(compareText);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonAt(value[k], depth + 1, SET_KEYS.has(k))}`).join(',')}}`;
}

function quote(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f-\u009f`]/g, '?');
  return `\`${clean.length > MAX_NAME_CHARS ? `${clean.slice(0, MAX_NAME_CHARS)}…` : clean}\``;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : canon(value);
  return text.length > MAX_NAME_CHARS ? `${text.slice(0, MAX_NAME_CHARS)}…` : text;
}
