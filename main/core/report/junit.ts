/**
 * JUnit XML, the report CI systems read (GitHub, GitLab, Jenkins, CircleCI, Azure): one writer for
 * `switchboard conformance --junit` and `switchboard check --junit` (#16).
 *
 * The shape is the common one (the Jenkins/Ant schema): `<testsuites>` of `<testsuite>`s of
 * `<testcase>`s, each with at most one `<failure>`, `<error>` or `<skipped>`, and an optional
 * `<system-out>`. Output is valid against the Jenkins xUnit plugin's junit-10.xsd (the tests check
 * it: test/support/junit-schema.ts), so `<testsuites>` carries no `skipped` count (that schema
 * does not allow one; each `<testsuite>` has its own).
 *
 * Text from servers is hostile: characters XML 1.0 cannot carry (most C0 controls, lone
 * surrogates, U+FFFE/U+FFFF) and characters that hide or reorder text in a CI page (zero-width,
 * bidi embeddings/overrides/isolates, BOM, the tag block U+E0000–U+E007F) become `\uXXXX` /
 * `\u{XXXXX}` escapes; every string is bounded; times are clamped to a finite range.
 */

export interface JUnitCase {
  name: string;
  /** The dotted group the case belongs to (`conformance.tools-call-image`, `check.lint`). */
  classname: string;
  timeSeconds?: number;
  /** At most one outcome; none means passed. */
  failure?: { message: string; type?: string; text?: string };
  error?: { message: string; type?: string; text?: string };
  skipped?: { message: string };
  systemOut?: string;
}

export interface JUnitSuite {
  name: string;
  timestamp?: Date;
  timeSeconds?: number;
  hostname?: string;
  properties?: Record<string, string>;
  cases: JUnitCase[];
}

const MAX_ATTR = 2_000;
const MAX_TEXT = 64_000;

/** Invisible or reordering: zero-width and marks, bidi embeddings/overrides/isolates, word joiners, BOM, tags. */
function hidden(code: number): boolean {
  return (
    code === 0x61c ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0xfeff ||
    (code >= 0xe0000 && code <= 0xe007f)
  );
}

/** Characters XML 1.0 allows: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
function xmlSafe(text: string, max: number): string {
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (++count > max) {
      out += '… (truncated)';
      break;
    }
    const code = ch.codePointAt(0) ?? 0;
    const xmlChar = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || code >= 0x10000;
    if (xmlChar && !hidden(code)) out += ch;
    else out += code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out;
}

export function escapeAttr(text: string): string {
  return xmlSafe(text, MAX_ATTR).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

export function escapeText(text: string): string {
  return xmlSafe(text, MAX_TEXT).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Seconds as `digits.digits` (the schema's SUREFIRE_TIME pattern): never negative, NaN or in exponent form. */
const MAX_SECONDS = 1e9;
const seconds = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '0' : Math.min(MAX_SECONDS, Math.max(0, value)).toFixed(3));

function stampOf(date: Date | undefined): string {
  const d = date && Number.isFinite(date.getTime()) ? date : new Date();
  return d.toISOString().replace(/\.\d{3}Z$/, '');
}

function outcome(tag: 'failure' | 'error', item: { message: string; type?: string; text?: string }): string {
  const type = item.type ? ` type="${escapeAttr(item.type)}"` : '';
  return item.text ? `      <${tag} message="${escapeAttr(item.message)}"${type}>${escapeText(item.text)}</${tag}>\n` : `      <${tag} message="${escapeAttr(item.message)}"${type}/>\n`;
}

function testcase(c: JUnitCase): string {
  const open = `    <testcase name="${escapeAttr(c.name)}" classname="${escapeAttr(c.classname)}" time="${seconds(c.timeSeconds)}"`;
  let body = '';
  if (c.failure) body += outcome('failure', c.failure);
  else if (c.error) body += outcome('error', c.error);
  else if (c.skipped) body += `      <skipped message="${escapeAttr(c.skipped.message)}"/>\n`;
  if (c.systemOut) body += `      <system-out>${escapeText(c.systemOut)}</system-out>\n`;
  return body ? `${open}>\n${body}    </testcase>\n` : `${open}/>\n`;
}

/** The whole document. Counts are computed from the cases, so they cannot disagree with them. */
export function junitXml(suites: JUnitSuite[]): string {
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let time = 0;
  const parts: string[] = [];
  suites.forEach((suite, index) => {
    const f = suite.cases.filter((c) => c.failure).length;
    const e = suite.cases.filter((c) => !c.failure && c.error).length;
    const s = suite.cases.filter((c) => !c.failure && !c.error && c.skipped).length;
    const t = suite.timeSeconds ?? suite.cases.reduce((sum, c) => sum + (c.timeSeconds ?? 0), 0);
    tests += suite.cases.length;
    failures += f;
    errors += e;
    time += t;
    const stamp = stampOf(suite.timestamp);
    let xml = `  <testsuite name="${escapeAttr(suite.name)}" id="${index}" package="${escapeAttr(suite.name)}" tests="${suite.cases.length}" failures="${f}" errors="${e}" skipped="${s}" time="${seconds(t)}" timestamp="${stamp}" hostname="${escapeAttr(suite.hostname ?? 'localhost')}">\n`;
    const props = Object.entries(suite.properties ?? {});
    if (props.length) xml += `    <properties>\n${props.map(([k, v]) => `      <property name="${escapeAttr(k)}" value="${escapeAttr(v)}"/>\n`).join('')}    </properties>\n`;
    xml += suite.cases.map(testcase).join('');
    xml += '  </testsuite>\n';
    parts.push(xml);
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="switchboard" tests="${tests}" failures="${failures}" errors="${errors}" time="${seconds(time)}">\n${parts.join('')}</testsuites>\n`;
}
