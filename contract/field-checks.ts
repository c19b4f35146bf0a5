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

/** The spec forbids asking for secrets through forms: flag fields that look like it. */
export function looksLikeSecret(name: string, title = '', description = ''): boolean {
  return /pass(word)?|secret|token|api[-_ ]?key|credential|private[-_ ]?key|ssn|pin\b/i.test(`${name} ${title} ${description}`);
}
