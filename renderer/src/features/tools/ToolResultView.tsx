import { Alert, Code, Group, Stack, Text } from '@mantine/core';
import type { Result } from '../../../../contract';

type Block = { type?: unknown; text?: unknown };

/** Server output is hostile input: rendered as text only, never as HTML. */
export function ToolResultView({ value }: { value: Result<'callTool'> }) {
  const { result } = value;
  const isError = result.isError === true;
  const content = Array.isArray(result.content) ? (result.content as Block[]) : [];
  return (
    <Stack gap="xs" data-testid="tool-result" data-is-error={isError}>
      <Group gap="xs">
        <Text size="sm" fw={600} c={isError ? 'orange' : undefined}>
          {isError ? 'Tool reported an error (isError)' : 'Result'}
        </Text>
        <Text size="xs" c="dimmed">
          {value.durationMs.toFixed(0)} ms
        </Text>
      </Group>
      {content.map((block, i) =>
        block.type === 'text' && typeof block.text === 'string' ? (
          <Alert key={i} color={isError ? 'orange' : 'gray'} variant="light" p="xs">
            <Text size="sm" className="pre-wrap mono" data-testid="tool-result-text">
              {block.text}
            </Text>
          </Alert>
        ) : (
          <Code key={i} block>
            {JSON.stringify(block, null, 2)}
          </Code>
        ),
      )}
      {result.structuredContent !== undefined && (
        <>
          <Text size="xs" fw={600}>
            structuredContent
          </Text>
          <Code block data-testid="tool-result-structured">
            {JSON.stringify(result.structuredContent, null, 2)}
          </Code>
        </>
      )}
    </Stack>
  );
}
