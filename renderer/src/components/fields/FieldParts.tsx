/**
 * The parts of a form field that the tools' schema form and the elicitation form draw alike:
 * the required mark, a field's error line, and an option's label (server text, so invisible
 * characters are named and long labels clipped). Each form keeps its own validation.
 */
import { Text } from '@mantine/core';
import { safeStringify } from '../../../../contract/bounded-json';
import { visibleText } from '../SafeText';

export function RequiredMark() {
  return (
    <Text span c="red" size="sm" aria-label="required">
      *
    </Text>
  );
}

export function FieldError({ text }: { text: string }) {
  return (
    <Text size="xs" c="red" className="pre-wrap" data-testid="field-error">
      {text}
    </Text>
  );
}

/** An enum option or a choice's title as plain text (a select's options take only strings). */
export function optionLabel(option: unknown, max = 120): string {
  return visibleText(typeof option === 'string' ? option : safeStringify(option), max);
}
