/**
 * The rule both the core (before a login window opens) and the renderer (before its popup
 * opens) apply to an authorization URL from a server's metadata.
 */
import { describe, expect, it } from 'vitest';
import { signInUrlVerdict } from '../../contract/sign-in-url';

describe('signInUrlVerdict', () => {
  it.each([
    'javascript:alert(document.domain)//',
    'JavaScript:fetch("//evil")',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'ms-settings:privacy',
  ])('refuses %s, naming the scheme', (raw) => {
    const verdict = signInUrlVerdict(raw);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(`scheme is ${new URL(raw).protocol}`);
  });

  it('refuses what is not a URL, and URLs that carry credentials', () => {
    expect(signInUrlVerdict('not a url').ok).toBe(false);
    expect(signInUrlVerdict('https://user:pw@auth.example/authorize').ok).toBe(false);
  });

  it('accepts http and https, unchanged', () => {
    for (const raw of ['https://auth.example/authorize?client_id=a&state=b', 'http://127.0.0.1:8080/authorize']) {
      const verdict = signInUrlVerdict(raw);
      expect(verdict.ok && verdict.url.href).toBe(new URL(raw).href);
    }
  });
});
