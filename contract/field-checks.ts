/** Checks of form values shared by the renderer (as the user types) and main (before answering a server). */

/** A server-supplied pattern as a RegExp, or undefined when it is too long or invalid (never trust it to compile). */
export function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return pattern.length > 500 ? undefined : new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

export function isUri(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * What secret a form field asks for ("password", "API key", "token", "PIN", …), or undefined.
 * The spec forbids asking for secrets through forms, so a field that asks for one gets a warning.
 * It is about what the field asks for: its name, title and description are read as words (so
 * "passport", "spinner" or "classname" never match), a term in a negated clause ("do not give
 * us your phone number, pin…", "never share your password") does not count, nor do words that
 * name a measure or an action rather than a value ("max tokens", "token count", "pin to top"),
 * and a yes/no or a choice among the server's options carries no secret of the person's.
 */
export function secretAskedFor(field: { name: string; title?: string; description?: string; kind?: string }): string | undefined {
  if (field.kind === 'boolean' || field.kind === 'select' || field.kind === 'multi') return undefined;
  for (const text of [field.name, field.title ?? '', field.description ?? '']) {
    for (const clause of clausesOf(text)) {
      const found = secretIn(clause);
      if (found) return found;
    }
  }
  return undefined;
}

/** The same, as a yes/no (name, title, description). */
export function looksLikeSecret(name: string, title = '', description = ''): boolean {
  return secretAskedFor({ name, title, description }) !== undefined;
}

interface SecretTerm {
  words: readonly string[];
  label: string;
  /** Followed by one of these, the words name a measure or an action, not a value ("token count", "pin to top"). */
  notAfter?: ReadonlySet<string>;
  /** Preceded by one of these, the same ("max tokens", "output tokens"). */
  notBefore?: ReadonlySet<string>;
}

const TOKEN_MEASURE = {
  notAfter: new Set(['count', 'counts', 'limit', 'limits', 'budget', 'usage', 'length', 'window', 'per', 'cost', 'costs']),
  notBefore: new Set(['max', 'maximum', 'min', 'minimum', 'output', 'input', 'completion', 'prompt', 'context', 'many']),
};

/** Secret terms as word sequences, with what the warning calls them. */
const SECRET_TERMS: readonly SecretTerm[] = [
  ...['password', 'passwd', 'pwd', 'passphrase', 'passcode', 'passwords'].map((w) => ({ words: [w], label: 'a password' })),
  ...[['api', 'key'], ['apikey'], ['api', 'keys'], ['access', 'key'], ['secret', 'key'], ['signing', 'key'], ['license', 'key']].map((words) => ({ words, label: 'an API key' })),
  ...[['private', 'key'], ['ssh', 'key'], ['private', 'keys']].map((words) => ({ words, label: 'a private key' })),
  ...['token', 'tokens', 'jwt', 'bearer'].map((w) => ({ words: [w], label: 'a token', ...TOKEN_MEASURE })),
  ...['secret', 'secrets'].map((w) => ({ words: [w], label: 'a secret' })),
  ...['credential', 'credentials', 'creds'].map((w) => ({ words: [w], label: 'credentials' })),
  ...['pin', 'pins'].map((w) => ({ words: [w], label: 'a PIN', notAfter: new Set(['to', 'it', 'this']) })),
  ...[['ssn'], ['social', 'security', 'number']].map((words) => ({ words, label: 'a social security number' })),
  ...[['otp'], ['totp'], ['one', 'time', 'code'], ['one', 'time', 'password'], ['2fa', 'code'], ['mfa', 'code']].map((words) => ({ words, label: 'a one-time code' })),
  ...[['cvv'], ['cvc'], ['card', 'number'], ['credit', 'card']].map((words) => ({ words, label: 'card details' })),
];

/** Words that turn the rest of their clause into "don't". */
const NEGATIONS = new Set(['not', 'no', 'never', 'without', 'nor', 'avoid', 'dont', 'except', 'instead']);

/** Clauses: a negation reaches to the end of its sentence or parenthesis, across commas. */
function clausesOf(text: string): string[][] {
  return text
    .slice(0, 4_000)
    .replace(/n['’]t\b/gi, ' not')
    .split(/[.;:!?()[\]{}\n]+|\s(?:but|however|although|though)\s/i)
    .map(wordsOf)
    .filter((words) => words.length > 0);
}

/** Lower-case words: camelCase, snake_case and kebab-case split; digits kept with letters ("2fa"). */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function secretIn(words: string[]): string | undefined {
  let negated = false;
  for (let i = 0; i < words.length; i++) {
    if (NEGATIONS.has(words[i]!)) negated = true;
    if (negated) continue;
    for (const term of SECRET_TERMS) {
      if (!term.words.every((w, k) => words[i + k] === w)) continue;
      const after = words[i + term.words.length];
      const before = words[i - 1];
      if ((after !== undefined && term.notAfter?.has(after)) || (before !== undefined && term.notBefore?.has(before))) continue;
      return term.label;
    }
  }
  return undefined;
}

export type RootUri = { ok: true; uri: string; fromPath: boolean } | { ok: false; error: string };

/**
 * A root as the person typed it, as the URI `roots/list` sends: a URI stays as typed (a file:
 * URI normalized: spaces and the like percent-encoded); an absolute path becomes a file: URI with
 * `pathToFileURL`'s encoding — POSIX (`/home/me/project`), Windows (`C:\work`, `C:/work`) and UNC
 * (`\\server\share\x`). `~` is refused rather than guessed (the home directory is the server
 * machine's business, and Switchboard does not expand it); so is a relative path, which has no
 * meaning to a server that does not share Switchboard's working directory. Runs in the renderer
 * and in main (the contract's schema uses it), so both say the same.
 */
export function toRootUri(input: string): RootUri {
  const text = input.trim();
  if (text === '') return { ok: false, error: 'a root needs a folder path or a URI' };
  if (text.length > 4_096) return { ok: false, error: 'a root is at most 4,096 characters' };
  if (/^~/.test(text)) return { ok: false, error: `“~” is not expanded: write the full path (for example /home/me${text.slice(1).replace(/^[^/\\]*/, '')} or C:\\Users\\me\\…)` };
  // Windows drive paths first: "C:" would otherwise read as a URI scheme.
  if (/^[a-z]:([\\/]|$)/i.test(text)) return { ok: true, uri: pathUri(`/${text.replace(/\\/g, '/')}`, ''), fromPath: true };
  const unc = /^[\\/]{2}([^\\/]+)[\\/]+(.*)$/.exec(text);
  if (unc && text.startsWith('\\\\')) return { ok: true, uri: pathUri(`/${unc[2]!.replace(/\\/g, '/')}`, unc[1]!), fromPath: true };
  if (text.startsWith('/')) return { ok: true, uri: pathUri(encodePosix(text), ''), fromPath: true };
  if (/^[a-z][a-z0-9+.-]+:/i.test(text)) {
    if (!isUri(text)) return { ok: false, error: `“${text.slice(0, 80)}” is not a valid URI` };
    return { ok: true, uri: /^file:/i.test(text) ? new URL(text).href : text, fromPath: false };
  }
  return { ok: false, error: `“${text.slice(0, 80)}” is a relative path: a root must be an absolute path (/home/me/project, C:\\work) or a URI (file:///home/me/project)` };
}

/**
 * What `pathToFileURL` escapes itself before the URL parser sees the path (the parser encodes
 * the rest: spaces, quotes, #, ?, non-ASCII…). On POSIX a backslash is a file name's character.
 */
const PATH_ESCAPES: Record<string, string> = { '%': '%25', '\\': '%5C', '\n': '%0A', '\r': '%0D', '\t': '%09', '[': '%5B', ']': '%5D', '^': '%5E', '|': '%7C', '~': '%7E' };

function encodePosix(path: string): string {
  return path.replace(/[%\\\n\r\t[\]^|~]/g, (c) => PATH_ESCAPES[c]!);
}

function pathUri(path: string, host: string): string {
  const url = new URL('file://');
  if (host) url.hostname = host;
  // Windows paths arrive with "\\" already turned into "/".
  url.pathname = host || /^\/[a-z]:/i.test(path) ? encodePosix(path) : path;
  return url.href;
}
