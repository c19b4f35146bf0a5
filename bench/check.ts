/**
 * `npx tsx bench/check.ts`: what `switchboard check` spends on its own work for one server, with
 * no server in the way — the lint, the schema checks (a fresh Ajv per schema, compile included)
 * and the o200k token count — over BENCH_CHECK_TOOLS (default 1,000) realistic tools (nested
 * input schemas with a `$ref`, an output schema, a paragraph of description). Prints the median
 * of BENCH_CHECK_ROUNDS (5) rounds per part, and per tool.
 */
import { lintServerTools, type LintTool } from '../main/core/check/lint';
import { checkToolSchema } from '../main/core/check/schemas';
import { toolListTokens } from '../main/core/check/tokens';
import { envInt, median } from './stats';

const TOOLS = envInt('BENCH_CHECK_TOOLS', 1_000, 1);
const ROUNDS = envInt('BENCH_CHECK_ROUNDS', 5, 1);

function tool(i: number): LintTool & { outputSchema: unknown } {
  return {
    name: `search_items_${i}`,
    description: `Searches the catalog for items matching a query (variant ${i}). Returns at most \`limit\` results, newest first, with their ids, titles and prices. Use filters to narrow by category or price range.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Free text', minLength: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        filters: { $ref: '#/$defs/filters' },
      },
      required: ['query'],
      $defs: { filters: { type: 'object', properties: { category: { type: 'string', enum: ['a', 'b', 'c'] }, price: { type: 'object', properties: { min: { type: 'number' }, max: { type: 'number' } } } } } },
    },
    outputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' } } } } } },
  };
}

const tools = Array.from({ length: TOOLS }, (_, i) => tool(i));
const times: Record<'lint' | 'schemas' | 'tokens', number[]> = { lint: [], schemas: [], tokens: [] };
for (let round = 0; round < ROUNDS; round++) {
  let t = performance.now();
  const findings = lintServerTools('bench', tools);
  times.lint.push(performance.now() - t);
  t = performance.now();
  let failed = 0;
  for (const x of tools) if (checkToolSchema(x.inputSchema, 'inputSchema').verdict === 'failed' || checkToolSchema(x.outputSchema, 'outputSchema').verdict === 'failed') failed++;
  times.schemas.push(performance.now() - t);
  t = performance.now();
  const { tokens } = toolListTokens(tools);
  times.tokens.push(performance.now() - t);
  if (round === 0) console.log(`${TOOLS} tools: ${findings.length} lint findings, ${failed} schema failures, ${tokens.toLocaleString('en-US')} tokens`);
}
for (const [part, list] of Object.entries(times)) {
  const ms = median(list);
  console.log(`${part.padEnd(8)} median ${ms.toFixed(1)} ms (${((ms * 1000) / TOOLS).toFixed(0)} µs a tool) over ${ROUNDS} rounds`);
}
