/**
 * `switchboard check`'s tool lint (#16): what makes a tool list risky or unusable for a model
 * client, rule by rule. Everything linted came from a server: names and descriptions are only
 * read (never run, never fetched), excerpts in findings are bounded, and hidden characters are
 * named by code point, not reproduced.
 *
 * Rules (ids are what an expectations file's `lint` section names):
 *   missing-description   a tool without a description (or only whitespace): the model guesses
 *   name-too-long         a name over 64 characters (what common model APIs accept for a function)
 *   name-charset          a name outside the spec's tool-name alphabet: 1–128 of A–Z a–z 0–9 _ - .
 *   duplicate-name        the same name twice on one server, or on two servers of the config
 *   model-instructions    a description (the tool's, or a parameter's) that talks to the model:
 *                         INSTRUCTION_PATTERNS below, the small documented list
 *   hidden-characters     zero-width, bidi embedding/override/isolate, word-joiner, BOM or tag
 *                         (U+E0000–U+E007F) characters in a name, title or description
 */

export type LintRule = 'missing-description' | 'name-too-long' | 'name-charset' | 'duplicate-name' | 'model-instructions' | 'hidden-characters';

export const LINT_RULES: readonly LintRule[] = ['missing-description', 'name-too-long', 'name-charset', 'duplicate-name', 'model-instructions', 'hidden-characters'];

export const MAX_TOOL_NAME = 64;
/** The spec's tool names (2025-11-25, "Tool names"): 1 to 128 characters of this alphabet. */
const SPEC_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface LintTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
}

export interface LintFinding {
  rule: LintRule;
  /** The tool's server; absent for a cross-server finding. */
  server?: string;
  tool: string;
  message: string;
}

/** Phrases aimed at the model rather than the person: tool-poisoning and prompt-injection shapes. Matched case-insensitively on text with hidden characters removed and spaces collapsed. */
export const INSTRUCTION_PATTERNS: readonly { id: string; pattern: RegExp }[] = [
  { id: 'ignore previous instructions', pattern: /\b(ignore|disregard|forget|override)\b(\s+\w+){0,3}\s+(previous|prior|above|earlier|system|other)\s+(instructions?|prompts?|messages?|rules?|directions?)/ },
  { id: 'you must call/use', pattern: /\byou\s+(must|should|have\s+to|need\s+to)\s+(always\s+|first\s+)?(call|use|invoke|run|execute|read|send)\b/ },
  { id: 'always call this tool first', pattern: /\b(always|first)\s+(call|use|invoke|run)\s+(this|the\s+\w+)\s+tool\b|\bbefore\s+(using|calling)\s+any\s+other\s+tools?\b|\binstead\s+of\s+any\s+other\s+tools?\b/ },
  { id: 'do not tell the user', pattern: /\b(do\s+not|don't|never)\s+(tell|inform|mention|show|reveal|notify)\b(\s+\w+){0,3}\s+(the\s+)?user\b|\bwithout\s+(telling|informing|notifying)\s+the\s+user\b|\bhide\s+(this|it)\s+from\s+the\s+user\b/ },
  { id: 'system prompt', pattern: /\b(reveal|print|output|repeat|show)\s+(your|the)\s+(system\s+prompt|instructions)\b/ },
  { id: 'role change', pattern: /\byou\s+are\s+now\b|\bact\s+as\s+(an?\s+)?(admin|administrator|root|system|developer)\b|\bnew\s+instructions\s*:/ },
  { id: 'model-facing tags', pattern: /<\s*\/?\s*(important|system|instructions?|secret|hidden)\s*>/ },
];

/** Invisible or reordering characters (the ranges the issue names, plus the few that hide text the same way). */
const HIDDEN = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/gu;

export function hiddenCharacters(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(HIDDEN)) {
    found.add(`U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    if (found.size >= 10) break;
  }
  return [...found];
}

/** The instruction phrases a text contains (ids from INSTRUCTION_PATTERNS). */
export function modelInstructions(text: string): string[] {
  const plain = text.slice(0, 100_000).replace(HIDDEN, '').replace(/\s+/g, ' ').toLowerCase();
  return INSTRUCTION_PATTERNS.filter(({ pattern }) => pattern.test(plain)).map(({ id }) => id);
}

/** A name as a finding shows it: bounded, hidden characters spelled out. */
export function shown(name: string, max = 80): string {
  const visible = name.replace(HIDDEN, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase()}>`);
  return visible.length > max ? `${visible.slice(0, max)}…` : visible;
}

/** Parameter descriptions of an input schema, by property path (one level of nesting per object, bounded). */
function parameterTexts(schema: unknown, path = '', out: { path: string; text: string }[] = [], depth = 0): { path: string; text: string }[] {
  if (depth > 8 || out.length > 500 || !schema || typeof schema !== 'object' || Array.isArray(schema)) return out;
  const properties = (schema as { properties?: unknown }).properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return out;
  for (const [key, value] of Object.entries(properties as Record<string, unknown>).slice(0, 500)) {
    if (!value || typeof value !== 'object') continue;
    const here = shown(path ? `${path}.${key}` : key, 120);
    for (const field of ['description', 'title'] as const) {
      const text = (value as Record<string, unknown>)[field];
      if (typeof text === 'string') out.push({ path: `${here} (${field})`, text });
    }
    parameterTexts(value, here, out, depth + 1);
  }
  return out;
}

/** The findings for one server's tools (every rule but the cross-server duplicates). */
export function lintServerTools(server: string, tools: readonly LintTool[]): LintFinding[] {
  const findings: LintFinding[] = [];
  const add = (rule: LintRule, tool: string, message: string) => findings.push({ rule, server, tool, message });
  const seen = new Map<string, number>();
  for (const tool of tools) {
    const name = typeof tool.name === 'string' ? tool.name : '';
    seen.set(name, (seen.get(name) ?? 0) + 1);
    const label = shown(name);
    if (typeof tool.description !== 'string' || tool.description.trim() === '') add('missing-description', name, `tool "${label}" has no description: a model has only its name to decide when to call it`);
    if ([...name].length > MAX_TOOL_NAME) add('name-too-long', name, `tool "${label}" is named with ${[...name].length} characters, over ${MAX_TOOL_NAME} (common model APIs reject longer function names)`);
    if (!SPEC_NAME.test(name)) add('name-charset', name, `tool "${label}" has a name outside the spec's alphabet (1–128 of A–Z a–z 0–9 _ - .)`);
    const texts = [
      { path: 'name', text: name },
      ...(typeof tool.title === 'string' ? [{ path: 'title', text: tool.title }] : []),
      ...(typeof tool.description === 'string' ? [{ path: 'description', text: tool.description }] : []),
      ...parameterTexts(tool.inputSchema),
    ];
    for (const { path, text } of texts) {
      const hidden = hiddenCharacters(text);
      if (hidden.length) add('hidden-characters', name, `tool "${label}": its ${path} contains hidden or reordering characters (${hidden.join(', ')}): what a person reads is not what the model reads`);
      if (path === 'name') continue;
      const phrases = modelInstructions(text);
      if (phrases.length) add('model-instructions', name, `tool "${label}": its ${path} contains instructions aimed at the model (${phrases.join('; ')})`);
    }
  }
  for (const [name, count] of seen) if (count > 1) add('duplicate-name', name, `tool "${shown(name)}" is listed ${count} times by this server`);
  return findings;
}

/** Names used by more than one server: a client that merges tool lists sees a clash. */
export function lintAcrossServers(servers: readonly { server: string; tools: readonly LintTool[] }[]): LintFinding[] {
  const owners = new Map<string, Set<string>>();
  for (const { server, tools } of servers) {
    for (const tool of tools) {
      if (typeof tool.name !== 'string') continue;
      const set = owners.get(tool.name) ?? new Set<string>();
      set.add(server);
      owners.set(tool.name, set);
    }
  }
  const findings: LintFinding[] = [];
  for (const [name, set] of owners) {
    if (set.size > 1) findings.push({ rule: 'duplicate-name', tool: name, message: `tool "${shown(name)}" is offered by ${set.size} servers (${[...set].map((s) => shown(s, 40)).join(', ')}): a client that merges their lists sees a clash` });
  }
  return findings;
}
