/**
 * The token cost of a server's tool list (#16): what a model pays, in context, for every tool a
 * client offers it. Counted on this machine with gpt-tokenizer's o200k_base encoding (the GPT-4o
 * family's; other models tokenize differently, so read it as an estimate), over the JSON a client
 * typically sends: each tool's name, description and inputSchema. Nothing leaves the machine.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

export const TOKEN_ENCODING = 'o200k_base';
/** Characters counted at most (a hostile list could be huge); beyond, the count is extrapolated and said so. */
export const MAX_TOKENIZED_CHARS = 2_000_000;

export function toolListText(tools: readonly { name?: unknown; description?: unknown; inputSchema?: unknown }[]): string {
  return JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })));
}

export function toolListTokens(tools: readonly { name?: unknown; description?: unknown; inputSchema?: unknown }[]): { tokens: number; estimated: boolean } {
  const text = toolListText(tools);
  if (text.length <= MAX_TOKENIZED_CHARS) return { tokens: countTokens(text), estimated: false };
  const sample = countTokens(text.slice(0, MAX_TOKENIZED_CHARS));
  return { tokens: Math.round((sample * text.length) / MAX_TOKENIZED_CHARS), estimated: true };
}
