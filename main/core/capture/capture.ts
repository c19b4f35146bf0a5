/**
 * Capturing a client (#12): rewrite entries of a client's MCP config (Claude Desktop, Cursor,
 * VS Code JSONC with comments kept, Claude Code, Windsurf) so the client launches its servers
 * through `switchboard proxy`, with a backup; restore puts every byte back.
 *
 * Edits are made with jsonc-parser on the file's own text: only the values of the chosen
 * entries change (`command`/`args` of a stdio entry, the URL of an HTTP one); comments, order,
 * indentation, trailing commas and every other byte stay. A write is compare-and-swap: the file
 * is read (and hashed), the new text is written to a temporary file beside it, the file is read
 * again, and only if it still holds what was read is the temporary renamed over it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { applyEdits, createScanner, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode, type Edit, type Node, type ParseError } from 'jsonc-parser';
import { ServerConfigInput } from '../../../contract';
import type { CaptureConfig, CaptureEntry, CaptureResult } from '../../../contract/proxy';
import { fromClientEntry } from '../config/import';
import { writeFileAtomicSync } from '../store/atomic-file';
import { Redactor, configSecrets } from '../trace/redact';

/** The named limits of capture (docs/limits.md). */
export const CAPTURE_LIMITS = {
  /** A client config we read: Claude Code's ~/.claude.json holds history too and grows to megabytes. */
  fileBytes: 16 * 1024 * 1024,
  /** Nesting of a config's JSON (checked with a token scanner before the tree is built). */
  depth: 200,
  /** Entries listed per file (every table together: top level and Claude Code's projects). */
  entries: 500,
  /** Claude Code projects looked into for their own `mcpServers`. */
  projects: 2000,
} as const;

export interface CaptureOptions {
  /** How a client launches the proxy: an absolute command and the args before `proxy`. */
  proxyCommand: { command: string; args: string[] };
  /** Where backups are kept (`<data dir>/capture-backups`). */
  backupDir: string;
  /** `--data-dir` the captured entries pass on (so they record into the same library). */
  dataDir?: string;
  /** Capture only: the hash of the file as the person saw it (a scan); the file must still hold it. */
  expectedHash?: string;
  /** Capture only: a free local port for an HTTP entry's proxy (default: one the system gives now). */
  choosePort?: () => Promise<number>;
  /** Called after the new text is ready and before the file is checked and replaced (tests change the file here). */
  beforeWrite?: () => void;
}

/** Why a capture or restore did nothing: the file changed under us, or it cannot be read as a config. */
export class CaptureRefused extends Error {
  constructor(
    readonly reason: 'conflict' | 'unparseable' | 'not-found' | 'nothing',
    message: string,
  ) {
    super(message);
    this.name = 'CaptureRefused';
  }
}

/** What the backup directory remembers about one captured entry. */
interface ManifestEntry {
  key: string;
  /** Its location in the document: the table's path, then the entry's name. */
  path: (string | number)[];
  transport: 'stdio' | 'http';
  /** stdio: the entry had no `args` before (restore removes ours). */
  hadArgs?: boolean;
  /** http: the property that holds the URL, the original URL and the local proxy's port. */
  urlKey?: string;
  originalUrl?: string;
  port?: number;
  legacySse?: boolean;
}

interface Manifest {
  version: 1;
  path: string;
  capturedAt: number;
  /** sha256 of the original bytes (the `original` file) and of what we wrote last. */
  originalHash: string;
  writtenHash: string;
  entries: ManifestEntry[];
}

const MANIFEST = 'manifest.json';
const ORIGINAL = 'original';
/** Ports chosen per entry, kept after a restore so that capturing again gives the same URL. */
const PORTS = 'ports.json';

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export function backupDirOf(backupRoot: string, path: string): string {
  return join(backupRoot, sha256(path).slice(0, 24));
}

// ------------------------------------------------------------------ reading a config

/** One server entry found in a config, with where it sits in the text. */
interface FoundEntry {
  /** Unique in the file: the name, or `name (project P)` for Claude Code's per-project entries. */
  key: string;
  name: string;
  path: (string | number)[];
  node: Node;
  raw: Record<string, unknown>;
}

interface ReadConfig {
  bytes: Buffer;
  hash: string;
  /** The text edited (without a byte-order mark, which is put back on write). */
  text: string;
  bom: string;
  format: 'json' | 'jsonc';
  root: Node;
  entries: FoundEntry[];
}

/** Reads and parses one config; throws CaptureRefused (not-found / unparseable) with a message a person can act on. */
function readConfig(path: string): ReadConfig {
  let bytes: Buffer;
  try {
    const size = statSync(path).size;
    if (size > CAPTURE_LIMITS.fileBytes) throw new CaptureRefused('unparseable', `${path} is ${(size / 1024 / 1024).toFixed(1)} MiB, more than the ${CAPTURE_LIMITS.fileBytes / 1024 / 1024} MiB Switchboard reads; left alone.`);
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof CaptureRefused) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new CaptureRefused(code === 'ENOENT' ? 'not-found' : 'unparseable', `Cannot read ${path}: ${(error as Error).message}`);
  }
  const decoded = bytes.toString('utf8');
  if (!Buffer.from(decoded, 'utf8').equals(bytes) || decoded.includes('\u0000')) {
    throw new CaptureRefused('unparseable', `${path} is not UTF-8 text; left alone (rewriting it could change bytes Switchboard cannot read).`);
  }
  const bom = decoded.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = decoded.slice(bom.length);
  const depth = maxDepth(text);
  if (depth > CAPTURE_LIMITS.depth) throw new CaptureRefused('unparseable', `${path} is nested ${depth} levels deep (at most ${CAPTURE_LIMITS.depth}); left alone.`);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length > 0 || !root) {
    const first = errors[0];
    const where = first ? lineColumn(text, first.offset) : undefined;
    throw new CaptureRefused(
      'unparseable',
      `${path} cannot be parsed${first ? `: ${printParseErrorCode(first.error)} at line ${where!.line}, column ${where!.column}` : ''}. It was left alone; fix it (or let its client rewrite it) and scan again.`,
    );
  }
  if (root.type !== 'object') throw new CaptureRefused('unparseable', `${path} is not a JSON object; left alone.`);
  const format = hasComments(text) || /,\s*[}\]]/.test(text) ? 'jsonc' : path.endsWith('.jsonc') || /[/\\]Code[/\\]User[/\\]|[/\\]\.vscode[/\\]/.test(path) ? 'jsonc' : 'json';
  return { bytes, hash: sha256(bytes), text, bom, format, root, entries: findEntries(root) };
}

/** The server tables of a config: `mcpServers`, VS Code's `servers` / `mcp.servers`, Claude Code's `projects[P].mcpServers`. */
function findEntries(root: Node): FoundEntry[] {
  const tables: { path: (string | number)[]; project?: string }[] = [];
  const isSwitchboardExport = findNodeAtLocation(root, ['switchboard']) !== undefined;
  for (const path of [['mcpServers'], ['servers'], ['mcp', 'servers']]) {
    if (isSwitchboardExport && path[0] === 'servers') continue;
    if (findNodeAtLocation(root, path)?.type === 'object') tables.push({ path });
  }
  const projects = findNodeAtLocation(root, ['projects']);
  if (projects?.type === 'object') {
    for (const property of (projects.children ?? []).slice(0, CAPTURE_LIMITS.projects)) {
      const project = property.children?.[0]?.value;
      if (typeof project !== 'string') continue;
      if (findNodeAtLocation(root, ['projects', project, 'mcpServers'])?.type === 'object') tables.push({ path: ['projects', project, 'mcpServers'], project });
    }
  }
  const found: FoundEntry[] = [];
  const keys = new Set<string>();
  for (const table of tables) {
    const node = findNodeAtLocation(root, table.path)!;
    for (const property of node.children ?? []) {
      if (found.length >= CAPTURE_LIMITS.entries) return found;
      const name = property.children?.[0]?.value;
      const value = property.children?.[1];
      if (typeof name !== 'string' || !value || value.type !== 'object') continue;
      let key = table.project === undefined ? name : `${name} (project ${table.project})`;
      if (keys.has(key)) key = `${key} (${table.path.join('.')})`;
      if (keys.has(key)) continue; // a duplicate key: JSON keeps the last one, and so does the client
      keys.add(key);
      found.push({ key, name, path: [...table.path, name], node: value, raw: getNodeValue(value) as Record<string, unknown> });
    }
  }
  return found;
}

/** jsonc-parser's `SyntaxKind` values (a const enum: not importable as a value here). */
const TOKEN = { openBrace: 1, closeBrace: 2, openBracket: 3, closeBracket: 4, lineComment: 12, blockComment: 13, eof: 17 } as const;

/** The deepest nesting in a JSON(C) text, by tokens (no recursion: a hostile file cannot blow the stack). */
function maxDepth(text: string): number {
  const scanner = createScanner(text, true);
  let depth = 0;
  let max = 0;
  for (let kind = scanner.scan(); kind !== TOKEN.eof; kind = scanner.scan()) {
    if (kind === TOKEN.openBrace || kind === TOKEN.openBracket) max = Math.max(max, ++depth);
    else if (kind === TOKEN.closeBrace || kind === TOKEN.closeBracket) depth--;
  }
  return max;
}

function hasComments(text: string): boolean {
  const scanner = createScanner(text, false);
  for (let kind = scanner.scan(); kind !== TOKEN.eof; kind = scanner.scan()) {
    if (kind === TOKEN.lineComment || kind === TOKEN.blockComment) return true;
  }
  return false;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

// ------------------------------------------------------------------ entries

type Kind = { transport: 'stdio'; command: string; args: string[] } | { transport: 'http'; urlKey: string; url: string; legacySse: boolean };

function kindOf(raw: Record<string, unknown>): Kind | { problem: string } {
  const declared = String(raw.type ?? raw.transport ?? raw.transportType ?? '').toLowerCase();
  if (declared === 'stdio' || (!declared && raw.command !== undefined)) {
    if (typeof raw.command !== 'string' || !raw.command) return { problem: 'a stdio entry without a "command" string' };
    if (raw.args !== undefined && (!Array.isArray(raw.args) || !raw.args.every((a) => typeof a === 'string'))) return { problem: '"args" is not a list of strings' };
    return { transport: 'stdio', command: raw.command, args: (raw.args as string[] | undefined) ?? [] };
  }
  const urlKey = ['url', 'serverUrl', 'httpUrl'].find((key) => typeof raw[key] === 'string');
  if (!urlKey) return { problem: declared ? `a "${declared}" entry without a "url"` : 'neither a "command" (stdio) nor a "url" (HTTP)' };
  const url = raw[urlKey] as string;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return { problem: `"${urlKey}" is not an http(s) URL` };
  if (declared && !['http', 'sse', 'streamable-http', 'streamablehttp', 'streamable_http'].includes(declared)) return { problem: `unknown transport type "${declared}"` };
  return { transport: 'http', urlKey, url, legacySse: declared === 'sse' };
}

/** The original command line inside one of our wrappers (`… proxy … -- CMD ARGS…`), or undefined. */
export function unwrapProxyArgs(command: string, args: readonly string[]): { command: string; args: string[]; name?: string } | undefined {
  const at = args.indexOf('proxy');
  if (at < 0) return undefined;
  const launcher = [command, ...args.slice(0, at)];
  if (!launcher.some((part) => /(^|[/\\])switchboard(\.mjs|\.cmd|\.exe)?$/i.test(part))) return undefined;
  const separator = args.indexOf('--', at + 1);
  if (separator < 0 || separator === args.length - 1) return undefined;
  const nameAt = args.indexOf('--name', at + 1);
  return { command: args[separator + 1]!, args: args.slice(separator + 2), ...(nameAt > 0 && nameAt < separator ? { name: args[nameAt + 1] } : {}) };
}

/** The entry's target as a person may see it: secret options, URL parameters and env values out. */
function describe(name: string, raw: Record<string, unknown>, kind: Kind): string {
  const redactor = new Redactor();
  try {
    const parsed = ServerConfigInput.safeParse(fromClientEntry(name, raw));
    if (parsed.success) for (const secret of configSecrets(parsed.data.target)) redactor.addSecret(secret);
  } catch {
    // described without configured secrets: the rules still apply
  }
  if (kind.transport === 'http') {
    const headers = raw.headers && typeof raw.headers === 'object' ? Object.keys(raw.headers) : [];
    return `${redactor.url(kind.url)}${kind.legacySse ? ' (SSE)' : ''}${headers.length ? ` (headers: ${headers.join(', ')})` : ''}`;
  }
  const inner = unwrapProxyArgs(kind.command, kind.args) ?? kind;
  const env = raw.env && typeof raw.env === 'object' ? Object.keys(raw.env) : [];
  return `${[inner.command, ...redactor.args(inner.args)].map(quoteArg).join(' ')}${env.length ? ` (env: ${env.join(', ')})` : ''}`;
}

// ------------------------------------------------------------------ scan

export function scanCaptureConfigs(locations: { client: string; path: string }[], options: Pick<CaptureOptions, 'backupDir'>): CaptureConfig[] {
  const unique = locations.filter((location, i) => locations.findIndex((l) => l.path === location.path) === i);
  return unique.map(({ client, path }) => {
    const backupDir = backupDirOf(options.backupDir, path);
    const manifest = readManifest(backupDir);
    const backup = manifest ? backupDir : undefined;
    if (!existsSync(path)) return { client, path, exists: false, entries: [], ...(backup ? { backup, error: 'The file is gone; Restore writes the backed-up original back.' } : {}) };
    try {
      const config = readConfig(path);
      return { client, path, exists: true, format: config.format, entries: config.entries.map((entry) => entryOf(entry, manifest)), ...(backup ? { backup } : {}) };
    } catch (error) {
      return { client, path, exists: true, entries: [], error: (error as Error).message, ...(backup ? { backup } : {}) };
    }
  });
}

/** The hash of a config's bytes now (what a scan saw), or undefined when it cannot be read. */
export function configHash(path: string): string | undefined {
  try {
    return sha256(readFileSync(path));
  } catch {
    return undefined;
  }
}

function entryOf(entry: FoundEntry, manifest: Manifest | undefined): CaptureEntry {
  const kind = kindOf(entry.raw);
  if ('problem' in kind) return { name: entry.key, transport: entry.raw.url || entry.raw.serverUrl ? 'http' : 'stdio', target: '', captured: false, problem: kind.problem };
  const captured = isCaptured(entry, kind, manifest);
  const ours = captured && kind.transport === 'http' ? manifest?.entries.find((m) => m.key === entry.key) : undefined;
  // A captured HTTP entry shows where it really goes, and the local proxy it points at now.
  const shown = ours?.originalUrl ? { ...kind, url: ours.originalUrl } : kind;
  return { name: entry.key, transport: kind.transport, target: `${describe(entry.name, entry.raw, shown)}${ours ? ` (via the proxy on 127.0.0.1:${ours.port})` : ''}`, captured };
}

function isCaptured(entry: FoundEntry, kind: Kind, manifest: Manifest | undefined): boolean {
  if (kind.transport === 'stdio') return unwrapProxyArgs(kind.command, kind.args) !== undefined;
  const ours = manifest?.entries.find((m) => m.key === entry.key && m.transport === 'http');
  return ours?.port !== undefined && isLocalProxyUrl(kind.url, ours.port);
}

function isLocalProxyUrl(url: string, port: number): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.hostname === '127.0.0.1' && parsed.port === String(port);
}

// ------------------------------------------------------------------ capture

export async function applyCapture(path: string, names: string[], options: CaptureOptions): Promise<CaptureResult> {
  const target = resolveTarget(path);
  const config = readConfig(target);
  if (options.expectedHash !== undefined && options.expectedHash !== config.hash) {
    throw new CaptureRefused('conflict', `${path} changed since it was scanned; nothing was written. Scan again and choose the entries again.`);
  }
  const unknown = names.filter((name) => !config.entries.some((e) => e.key === name));
  if (unknown.length > 0) throw new CaptureRefused('nothing', `${path} has no entr${unknown.length === 1 ? 'y' : 'ies'} named ${unknown.map((n) => `"${n}"`).join(', ')}; nothing was written.`);

  const backupDir = backupDirOf(options.backupDir, path);
  const previous = readManifest(backupDir);
  const ports = readPorts(backupDir);
  let text = config.text;
  const changed: string[] = [];
  const already: string[] = [];
  const problems: string[] = [];
  const commands: CaptureResult['commands'] = [];
  const recorded: ManifestEntry[] = [];
  for (const name of names) {
    const entry = findEntries(parseTree(text)!).find((e) => e.key === name)!;
    const kind = kindOf(entry.raw);
    if ('problem' in kind) {
      problems.push(`${name}: ${kind.problem}`);
      continue;
    }
    if (isCaptured(entry, kind, previous)) {
      already.push(name);
      continue;
    }
    if (kind.transport === 'stdio') {
      const args = [...options.proxyCommand.args, 'proxy', '--name', entry.name, ...(options.dataDir ? ['--data-dir', options.dataDir] : []), '--', kind.command, ...kind.args];
      text = setStdio(text, entry, options.proxyCommand.command, args);
      recorded.push({ key: name, path: entry.path, transport: 'stdio', hadArgs: entry.raw.args !== undefined });
    } else {
      const port = ports[name] ?? (await (options.choosePort ?? freePort)());
      ports[name] = port;
      const local = localUrl(kind.url, port);
      text = applyEdits(text, replaceValue(text, [...entry.path, kind.urlKey], local));
      recorded.push({ key: name, path: entry.path, transport: 'http', urlKey: kind.urlKey, originalUrl: kind.url, port, legacySse: kind.legacySse });
      commands.push({ name, command: proxyHttpCommand(options, entry.name, kind.url, port, kind.legacySse) });
    }
    changed.push(name);
  }
  if (changed.length === 0) {
    const why = [...(already.length ? [`already going through the proxy: ${already.join(', ')}`] : []), ...problems];
    return { path, changed: [], commands: [], message: `Nothing to change in ${path} (${why.join('; ') || 'no entries chosen'}).`, ...(previous ? { backup: backupDir } : {}) };
  }

  const finalText = config.bom + text;
  options.beforeWrite?.();
  // The backup first: the original bytes (or, if the person edited the file since our last capture,
  // those edits with our earlier entries put back, so a restore keeps them), then the manifest.
  mkdirSync(backupDir, { recursive: true, mode: 0o700 });
  chmodSync(backupDir, 0o700);
  let original = config.bytes.toString('utf8');
  let entries = recorded;
  if (previous) {
    entries = [...previous.entries.filter((e) => !recorded.some((r) => r.key === e.key)), ...recorded];
    original = previous.writtenHash === config.hash ? readFileSync(join(backupDir, ORIGINAL), 'utf8') : config.bom + unwrapText(config.text, previous.entries).text;
  }
  const manifest: Manifest = { version: 1, path, capturedAt: Date.now(), originalHash: sha256(original), writtenHash: sha256(finalText), entries };
  const previousOriginal = previous ? readFileSync(join(backupDir, ORIGINAL), 'utf8') : undefined;
  writeFileAtomicSync(join(backupDir, ORIGINAL), original);
  writeFileAtomicSync(join(backupDir, MANIFEST), JSON.stringify(manifest, null, 1) + '\n');
  writeFileAtomicSync(join(backupDir, PORTS), JSON.stringify(ports) + '\n');
  try {
    replaceIfUnchanged(target, config.hash, finalText);
  } catch (error) {
    // Nothing was written to the config: the backup goes back to what it was (unless another
    // capture has replaced our manifest meanwhile: then it is that capture's, and stays).
    if (readManifest(backupDir)?.writtenHash !== manifest.writtenHash) throw error;
    if (previous && previousOriginal !== undefined) {
      writeFileAtomicSync(join(backupDir, ORIGINAL), previousOriginal);
      writeFileAtomicSync(join(backupDir, MANIFEST), JSON.stringify(previous, null, 1) + '\n');
    } else {
      rmSync(join(backupDir, MANIFEST), { force: true });
      rmSync(join(backupDir, ORIGINAL), { force: true });
    }
    throw error;
  }
  const notes = [
    ...(already.length ? [`already going through the proxy: ${already.join(', ')}`] : []),
    ...problems,
    ...(commands.length ? [`${commands.length === 1 ? 'The HTTP entry points' : 'HTTP entries point'} at a local proxy: the client cannot reach ${commands.length === 1 ? 'it' : 'them'} until you run the command${commands.length === 1 ? '' : 's'} below (and keep ${commands.length === 1 ? 'it' : 'them'} running)`] : []),
  ];
  return {
    path,
    changed,
    backup: backupDir,
    commands,
    message: `Captured ${changed.length} entr${changed.length === 1 ? 'y' : 'ies'} in ${path}: ${changed.join(', ')}. Restart the client (or reload its MCP servers) to go through the proxy. Restore puts the file back.${notes.length ? ` ${notes.join('. ')}.` : ''}`,
  };
}

/** `command` replaced, `args` replaced or (absent before) inserted right after `command`, on the entry's own layout. */
function setStdio(text: string, entry: FoundEntry, command: string, args: string[]): string {
  let next = applyEdits(text, replaceValue(text, [...entry.path, 'command'], command));
  const tree = parseTree(next)!;
  const argsNode = findNodeAtLocation(tree, [...entry.path, 'args']);
  if (argsNode) return applyEdits(next, [{ offset: argsNode.offset, length: argsNode.length, content: inlineJson(args) }]);
  const commandNode = findNodeAtLocation(tree, [...entry.path, 'command'])!;
  const property = commandNode.parent!;
  const lineStart = next.lastIndexOf('\n', property.offset) + 1;
  const before = next.slice(lineStart, property.offset);
  const ownLine = /^\s*$/.test(before);
  const eol = next.includes('\r\n') ? '\r\n' : '\n';
  const insert = ownLine ? `,${eol}${before}"args": ${inlineJson(args)}` : `, "args": ${inlineJson(args)}`;
  next = next.slice(0, commandNode.offset + commandNode.length) + insert + next.slice(commandNode.offset + commandNode.length);
  return next;
}

/** An edit that replaces one existing value in place (nothing else is reformatted). */
function replaceValue(text: string, path: (string | number)[], value: unknown): Edit[] {
  const node = findNodeAtLocation(parseTree(text)!, path);
  if (!node) return modify(text, path, value, {});
  return [{ offset: node.offset, length: node.length, content: inlineJson(value) }];
}

const inlineJson = (value: unknown): string => (Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value));

export function localUrl(upstream: string, port: number): string {
  const url = new URL(upstream);
  return `http://127.0.0.1:${port}${url.pathname}${url.search}`;
}

function proxyHttpCommand(options: CaptureOptions, name: string, upstream: string, port: number, legacySse: boolean): string {
  const { command, args } = options.proxyCommand;
  return [command, ...args, 'proxy', '--name', name, '--upstream', upstream, '--port', String(port), ...(legacySse ? ['--transport', 'sse'] : []), ...(options.dataDir ? ['--data-dir', options.dataDir] : [])].map(quoteArg).join(' ');
}

/** POSIX-shell quoting for a command a person copies (plain words stay plain). */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

// ------------------------------------------------------------------ restore

export function restoreCapture(path: string, options: Pick<CaptureOptions, 'backupDir' | 'beforeWrite'>): CaptureResult {
  const backupDir = findBackup(path, options.backupDir);
  const manifest = readManifest(backupDir);
  const target = existsSync(path) ? resolveTarget(path) : path;
  if (manifest && !existsSync(path)) {
    const original = readFileSync(join(backupDir, ORIGINAL), 'utf8');
    options.beforeWrite?.();
    createExclusive(target, original);
    dropBackup(backupDir);
    return { path, changed: manifest.entries.map((e) => e.key), commands: [], message: `${path} was gone; the original was written back from the backup.` };
  }
  const config = readConfig(target);
  if (manifest && manifest.writtenHash === config.hash) {
    const original = readFileSync(join(backupDir, ORIGINAL));
    if (sha256(original) !== manifest.originalHash) throw new CaptureRefused('conflict', `The backup in ${backupDir} does not match its manifest; ${path} was left as it is.`);
    options.beforeWrite?.();
    replaceIfUnchanged(target, config.hash, original.toString('utf8'));
    dropBackup(backupDir);
    return { path, changed: manifest.entries.map((e) => e.key), commands: [], message: `Restored ${path} byte for byte from the backup (${manifest.entries.map((e) => e.key).join(', ')}).` };
  }
  // Changed since we wrote it (or no backup, e.g. it was deleted): put back only our entries, keep every other edit.
  const { text, changed, missing } = unwrapText(config.text, manifest?.entries ?? []);
  if (changed.length === 0) {
    if (manifest) dropBackup(backupDir);
    return { path, changed: [], commands: [], message: `Nothing to restore in ${path}: no entry goes through the proxy${missing.length ? ` (no longer in the file or edited by hand: ${missing.join(', ')})` : ''}.` };
  }
  options.beforeWrite?.();
  replaceIfUnchanged(target, config.hash, config.bom + text);
  if (manifest) dropBackup(backupDir);
  return {
    path,
    changed,
    commands: [],
    message: `${path} ${manifest ? 'changed since Switchboard captured it' : 'has no backup'}, so it was not put back byte for byte: only the captured entries were un-wrapped (${changed.join(', ')}); every other edit was kept.${missing.length ? ` Left as they are (no longer in the file or edited by hand): ${missing.join(', ')}.` : ''}`,
  };
}

/**
 * The backup of a config: under `backupRoot`, or else under the data dir a wrapped entry names
 * (`--data-dir DIR`: captured by the app or a CLI run with another data dir).
 */
function findBackup(path: string, backupRoot: string): string {
  const own = backupDirOf(backupRoot, path);
  if (readManifest(own) || !existsSync(path)) return own;
  try {
    for (const entry of readConfig(resolveTarget(path)).entries) {
      const kind = kindOf(entry.raw);
      if ('problem' in kind || kind.transport !== 'stdio' || !unwrapProxyArgs(kind.command, kind.args)) continue;
      const at = kind.args.indexOf('--data-dir');
      const dataDir = at >= 0 && at < kind.args.indexOf('--') ? kind.args[at + 1] : undefined;
      if (!dataDir) continue;
      const theirs = backupDirOf(join(dataDir, 'capture-backups'), path);
      if (readManifest(theirs)) return theirs;
    }
  } catch {
    // unreadable: the restore below says why
  }
  return own;
}

/** Our entries put back in a text: stdio wrappers undone (from their own args), HTTP URLs from the manifest. */
function unwrapText(source: string, known: ManifestEntry[]): { text: string; changed: string[]; missing: string[] } {
  let text = source;
  const changed: string[] = [];
  const missing: string[] = [];
  for (const entry of findEntries(parseTree(source)!)) {
    const kind = kindOf(entry.raw);
    if ('problem' in kind) continue;
    const ours = known.find((m) => m.key === entry.key);
    const current = findEntries(parseTree(text)!).find((e) => e.key === entry.key)!;
    if (kind.transport === 'stdio') {
      const inner = unwrapProxyArgs(kind.command, kind.args);
      if (!inner) continue;
      text = applyEdits(text, replaceValue(text, [...current.path, 'command'], inner.command));
      text = applyEdits(text, ours?.hadArgs === false && inner.args.length === 0 ? modify(text, [...current.path, 'args'], undefined, {}) : replaceValue(text, [...current.path, 'args'], inner.args));
      changed.push(entry.key);
    } else if (ours?.transport === 'http' && ours.urlKey && ours.originalUrl && ours.port !== undefined && isLocalProxyUrl(kind.url, ours.port)) {
      text = applyEdits(text, replaceValue(text, [...current.path, ours.urlKey], ours.originalUrl));
      changed.push(entry.key);
    }
  }
  for (const entry of known) if (!changed.includes(entry.key)) missing.push(entry.key);
  return { text, changed, missing };
}

function dropBackup(backupDir: string): void {
  rmSync(join(backupDir, MANIFEST), { force: true });
  rmSync(join(backupDir, ORIGINAL), { force: true });
}

// ------------------------------------------------------------------ files

function readManifest(backupDir: string): Manifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(backupDir, MANIFEST), 'utf8')) as Manifest;
    if (manifest.version !== 1 || !Array.isArray(manifest.entries) || typeof manifest.writtenHash !== 'string' || !existsSync(join(backupDir, ORIGINAL))) return undefined;
    return manifest;
  } catch {
    return undefined;
  }
}

function readPorts(backupDir: string): Record<string, number> {
  try {
    const ports = JSON.parse(readFileSync(join(backupDir, PORTS), 'utf8')) as unknown;
    if (!ports || typeof ports !== 'object') return {};
    return Object.fromEntries(Object.entries(ports).filter(([, p]) => typeof p === 'number' && Number.isInteger(p) && p > 0 && p < 65536)) as Record<string, number>;
  } catch {
    return {};
  }
}

/** The file a config path names: a symlinked dotfile is edited where it lives (the link stays a link). */
function resolveTarget(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

/**
 * Compare-and-swap: the new text goes to a temporary file beside the target (the target's mode),
 * the target is read again, and only if it still hashes to `expected` is the temporary renamed over it.
 */
function replaceIfUnchanged(path: string, expected: string, text: string): void {
  const mode = statSync(path).mode & 0o777;
  const temporary = join(dirname(path), `.${basename(path)}.switchboard-${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(temporary, mode);
    const now = sha256(readFileSync(path));
    if (now !== expected) throw new CaptureRefused('conflict', `${path} changed while Switchboard was writing it (another program saved it); nothing was written. Scan again.`);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** A file that must not exist yet (a restore of a deleted config): never over one that appeared meanwhile. */
function createExclusive(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    throw new CaptureRefused('conflict', `${path} appeared while Switchboard was restoring it (${(error as NodeJS.ErrnoException).code}); nothing was written. Scan again.`);
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
