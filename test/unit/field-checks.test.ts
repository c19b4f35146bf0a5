/**
 * The elicitation secret warning is about what a field asks for (issue #11, item 12): its words,
 * not substrings, and not words in a negated clause or that name a measure.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { looksLikeSecret, secretAskedFor } from '../../contract/field-checks';
import { fieldsOf } from '../../renderer/src/features/requests/form-model';

describe('secretAskedFor', () => {
  it('flags fields that ask for a secret, by name, title or description', () => {
    expect(secretAskedFor({ name: 'api_token' })).toBe('a token');
    expect(secretAskedFor({ name: 'apiKey' })).toBe('an API key');
    expect(secretAskedFor({ name: 'OPENAI_API_KEY' })).toBe('an API key');
    expect(secretAskedFor({ name: 'value', title: 'API key' })).toBe('an API key');
    expect(secretAskedFor({ name: 'pw', title: 'Password' })).toBe('a password');
    expect(secretAskedFor({ name: 'code', title: 'PIN', kind: 'integer' })).toBe('a PIN');
    expect(secretAskedFor({ name: 'x', description: 'Your GitHub personal access token' })).toBe('a token');
    expect(secretAskedFor({ name: 'x', description: 'Enter the 4-digit PIN your bank sent you.' })).toBe('a PIN');
    expect(secretAskedFor({ name: 'x', description: 'The private key (PEM) for signing' })).toBe('a private key');
    expect(secretAskedFor({ name: 'clientSecret' })).toBe('a secret');
    expect(secretAskedFor({ name: 'ssn' })).toBe('a social security number');
    expect(secretAskedFor({ name: 'x', title: 'Credit card number' })).toBe('card details');
    // A negation after the term does not unsay it.
    expect(secretAskedFor({ name: 'x', title: 'Password (not your e-mail one)' })).toBe('a password');
    // A negated sentence does not hide a later one that asks.
    expect(secretAskedFor({ name: 'x', description: 'Do not reuse an old one. Paste the new API key here.' })).toBe('an API key');
    expect(secretAskedFor({ name: 'x', description: "We won't store it, but we need your password" })).toBe('a password');
  });

  it('does not flag a term in a negated clause', () => {
    // The field of server-everything's trigger-elicitation-request that the issue met.
    expect(secretAskedFor({ name: 'integer', title: 'Integer', description: 'Your favorite integer (do not give us your phone number, pin, or other sensitive info)', kind: 'integer' })).toBeUndefined();
    expect(secretAskedFor({ name: 'note', description: 'Never paste a password or token here.' })).toBeUndefined();
    expect(secretAskedFor({ name: 'note', description: "Don't include secrets, API keys or credentials" })).toBeUndefined();
    expect(secretAskedFor({ name: 'note', description: 'A short comment — no tokens, no passwords.' })).toBeUndefined();
    expect(secretAskedFor({ name: 'note', description: 'Anything you like, without passwords' })).toBeUndefined();
  });

  it('does not flag words that merely contain a term, name a measure, or a choice', () => {
    for (const [name, title, description] of [
      ['passport_number', 'Passport', 'As printed on the passport'],
      ['spinner', 'Spinner style', ''],
      ['className', 'CSS class name', ''],
      ['bypass', 'Bypass cache', ''],
      ['tokenizer', 'Tokenizer', 'Which tokenizer to use'],
      ['max_tokens', 'Max tokens', 'Upper bound on output tokens'],
      ['budget', 'Token budget', 'Token count per request'],
      ['pinned', 'Pin to top', 'Pin to the top of the list'],
      ['name', 'String', 'Your full, legal name'],
      ['email', 'String with email format', 'Your email address (will be verified, and never shared with anyone else)'],
    ] as const) {
      expect(secretAskedFor({ name, title, description }), `${name} / ${title} / ${description}`).toBeUndefined();
    }
    expect(secretAskedFor({ name: 'has_key', title: 'Do you have an API key?', kind: 'boolean' })).toBeUndefined();
    expect(secretAskedFor({ name: 'auth', title: 'Password or passkey?', kind: 'select' })).toBeUndefined();
  });

  it('looksLikeSecret is the same, as a yes/no', () => {
    expect(looksLikeSecret('api_token')).toBe(true);
    expect(looksLikeSecret('integer', 'Integer', 'do not give us your pin')).toBe(false);
  });
});

describe("server-everything's trigger-elicitation-request form", () => {
  it('has no field that asks for a secret', async () => {
    // Its schema, as the published server sends it (read from its code: it is a literal there).
    const file = join(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/tools/trigger-elicitation-request.js');
    expect(readFileSync(file, 'utf8')).toContain('do not give us your phone number, pin');
    const { registerTriggerElicitationRequestTool } = (await import(pathToFileURL(file).href)) as {
      registerTriggerElicitationRequestTool(server: unknown): void;
    };
    let schema: unknown;
    const fake = {
      server: { getClientCapabilities: () => ({ elicitation: {} }) },
      registerTool: (_name: string, _config: unknown, handler: (args: unknown, extra: unknown) => Promise<unknown>) => {
        void handler({}, {
          sendRequest: async (request: { params: { requestedSchema: unknown } }) => {
            schema = request.params.requestedSchema;
            return { action: 'cancel' };
          },
        }).catch(() => undefined);
      },
    };
    registerTriggerElicitationRequestTool(fake);
    await expect.poll(() => schema).toBeDefined();
    const fields = fieldsOf(schema);
    expect(fields.length).toBeGreaterThan(8);
    expect(fields.find((f) => f.name === 'integer')).toMatchObject({ title: 'Integer', kind: 'integer', secret: false });
    expect(fields.filter((f) => f.secret).map((f) => f.name)).toEqual([]);
  });
});
