/**
 * What each of the official suite's server scenarios needs from the server under test, read from
 * the suite's own scenario code (`@modelcontextprotocol/conformance` 0.1.16, dist/index.js): the
 * test tools, resources and prompts it calls by name, and the capabilities it relies on. A
 * scenario whose needs the server does not list is reported "not applicable" with the reason
 * and is not run (running it would only report the missing tool as a failure of the server).
 *
 * `decides`: the request whose answer decides the scenario's checks, for pointing a failing
 * check at its exchange in the trace (method, and the tool/prompt name or resource URI it names).
 * A scenario not in this table (a newer suite) is run as it is, with no needs checked.
 */

export interface ScenarioNeeds {
  tools?: string[];
  resources?: string[];
  resourceTemplates?: string[];
  prompts?: string[];
  /** Top-level server capabilities (`completions`, `logging`) or `resources.subscribe`. */
  capabilities?: ('tools' | 'resources' | 'prompts' | 'completions' | 'logging' | 'resources.subscribe')[];
  /** Only a localhost URL (and no credentials): the suite's DNS rebinding scenario. */
  localhostOnly?: boolean;
  decides?: { method: string; name?: string; uri?: string };
}

export const SCENARIO_NEEDS: Readonly<Record<string, ScenarioNeeds>> = {
  'server-initialize': { decides: { method: 'initialize' } },
  'logging-set-level': { capabilities: ['logging'], decides: { method: 'logging/setLevel' } },
  ping: { decides: { method: 'ping' } },
  'completion-complete': { capabilities: ['completions'], prompts: ['test_prompt_with_arguments'], decides: { method: 'completion/complete' } },
  'tools-list': { capabilities: ['tools'], decides: { method: 'tools/list' } },
  'tools-call-simple-text': { tools: ['test_simple_text'], decides: { method: 'tools/call', name: 'test_simple_text' } },
  'tools-call-image': { tools: ['test_image_content'], decides: { method: 'tools/call', name: 'test_image_content' } },
  'tools-call-audio': { tools: ['test_audio_content'], decides: { method: 'tools/call', name: 'test_audio_content' } },
  'tools-call-embedded-resource': { tools: ['test_embedded_resource'], decides: { method: 'tools/call', name: 'test_embedded_resource' } },
  'tools-call-mixed-content': { tools: ['test_multiple_content_types'], decides: { method: 'tools/call', name: 'test_multiple_content_types' } },
  'tools-call-with-logging': { tools: ['test_tool_with_logging'], decides: { method: 'tools/call', name: 'test_tool_with_logging' } },
  'tools-call-error': { tools: ['test_error_handling'], decides: { method: 'tools/call', name: 'test_error_handling' } },
  'tools-call-with-progress': { tools: ['test_tool_with_progress'], decides: { method: 'tools/call', name: 'test_tool_with_progress' } },
  'tools-call-sampling': { tools: ['test_sampling'], decides: { method: 'tools/call', name: 'test_sampling' } },
  'tools-call-elicitation': { tools: ['test_elicitation'], decides: { method: 'tools/call', name: 'test_elicitation' } },
  'json-schema-2020-12': { tools: ['json_schema_2020_12_tool'], decides: { method: 'tools/list' } },
  'elicitation-sep1034-defaults': { tools: ['test_elicitation_sep1034_defaults'], decides: { method: 'tools/call', name: 'test_elicitation_sep1034_defaults' } },
  'server-sse-polling': { tools: ['test_reconnection'], decides: { method: 'tools/call', name: 'test_reconnection' } },
  'server-sse-multiple-streams': { capabilities: ['tools'], decides: { method: 'tools/list' } },
  'elicitation-sep1330-enums': { tools: ['test_elicitation_sep1330_enums'], decides: { method: 'tools/call', name: 'test_elicitation_sep1330_enums' } },
  'resources-list': { capabilities: ['resources'], decides: { method: 'resources/list' } },
  'resources-read-text': { resources: ['test://static-text'], decides: { method: 'resources/read', uri: 'test://static-text' } },
  'resources-read-binary': { resources: ['test://static-binary'], decides: { method: 'resources/read', uri: 'test://static-binary' } },
  'resources-templates-read': { resourceTemplates: ['test://template/{id}/data'], decides: { method: 'resources/read' } },
  'resources-subscribe': { capabilities: ['resources.subscribe'], resources: ['test://watched-resource'], decides: { method: 'resources/subscribe' } },
  'resources-unsubscribe': { capabilities: ['resources.subscribe'], resources: ['test://watched-resource'], decides: { method: 'resources/unsubscribe' } },
  'prompts-list': { capabilities: ['prompts'], decides: { method: 'prompts/list' } },
  'prompts-get-simple': { prompts: ['test_simple_prompt'], decides: { method: 'prompts/get', name: 'test_simple_prompt' } },
  'prompts-get-with-args': { prompts: ['test_prompt_with_arguments'], decides: { method: 'prompts/get', name: 'test_prompt_with_arguments' } },
  'prompts-get-embedded-resource': { prompts: ['test_prompt_with_embedded_resource'], decides: { method: 'prompts/get', name: 'test_prompt_with_embedded_resource' } },
  'prompts-get-with-image': { prompts: ['test_prompt_with_image'], decides: { method: 'prompts/get', name: 'test_prompt_with_image' } },
  'dns-rebinding-protection': { localhostOnly: true },
};

/** What the server lists, from a probe before the run. */
export interface ServerInventory {
  tools: Set<string>;
  resources: Set<string>;
  resourceTemplates: Set<string>;
  prompts: Set<string>;
  capabilities: Record<string, unknown>;
}

const listed = (kind: string, names: string[], have: Set<string>): string | undefined => {
  const missing = names.filter((n) => !have.has(n));
  if (!missing.length) return undefined;
  const plural = missing.length > 1;
  return `needs the ${kind}${plural ? 's' : ''} ${missing.join(', ')}, which this server does not list`;
};

function hasCapability(capabilities: Record<string, unknown>, name: NonNullable<ScenarioNeeds['capabilities']>[number]): boolean {
  if (name === 'resources.subscribe') {
    const resources = capabilities.resources;
    return typeof resources === 'object' && resources !== null && (resources as Record<string, unknown>).subscribe === true;
  }
  return capabilities[name] !== undefined && capabilities[name] !== null && capabilities[name] !== false;
}

/** Why the scenario does not apply to this server, or undefined when it does (or its needs are unknown). */
export function notApplicableReason(scenario: string, inventory: ServerInventory, target: { localhost: boolean; credentials: boolean; bridged?: boolean }): string | undefined {
  const needs = SCENARIO_NEEDS[scenario];
  if (!needs) return undefined;
  if (needs.localhostOnly) {
    if (target.bridged) return 'does not apply to a stdio server (it runs here behind a stdio→HTTP bridge, and DNS rebinding is about an HTTP endpoint of its own)';
    if (!target.localhost) return 'applies to localhost servers only (the suite tests DNS rebinding protection of a server on localhost, 127.0.0.1 or [::1])';
    if (target.credentials) return 'applies to servers without authentication (the suite sends its requests without your headers)';
  }
  for (const capability of needs.capabilities ?? []) {
    if (!hasCapability(inventory.capabilities, capability)) {
      return capability === 'resources.subscribe' ? 'needs resource subscriptions (capabilities.resources.subscribe), which this server does not declare' : `needs the ${capability} capability, which this server does not declare`;
    }
  }
  return (
    listed('tool', needs.tools ?? [], inventory.tools) ??
    listed('resource', needs.resources ?? [], inventory.resources) ??
    listed('resource template', needs.resourceTemplates ?? [], inventory.resourceTemplates) ??
    listed('prompt', needs.prompts ?? [], inventory.prompts)
  );
}
