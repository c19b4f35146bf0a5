/**
 * One error boundary per view: a render error in the Tools view (say, from a payload no one
 * foresaw) shows "This view failed: <message>" with "Reload this view", which remounts it; the
 * rest of the app keeps working. The error also goes to the console with its component stack.
 *
 * Test hook (documented, used by test/e2e/hardening.spec.ts): while `sessionStorage` holds
 * `switchboard:fail-view` = a view's name, that view throws when it renders, as a real bug would.
 */
import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { Component, type ErrorInfo, type ReactNode } from 'react';

export const FAIL_VIEW_KEY = 'switchboard:fail-view';

interface Props {
  /** Names the view in messages and in the test hook. */
  view: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  /** Grows on every "Reload this view": a new key remounts the children. */
  generation: number;
}

export class ViewBoundary extends Component<Props, State> {
  override state: State = { error: null, generation: 0 };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`Switchboard: the ${this.props.view} view failed to render`, error, info.componentStack);
  }

  private reload = () => this.setState((s) => ({ error: null, generation: s.generation + 1 }));

  override render(): ReactNode {
    const { error, generation } = this.state;
    if (error) {
      const message = (error.message || error.name || 'unknown error').slice(0, 2_000);
      return (
        <Alert color="red" variant="light" title={`This view failed: ${message.split('\n')[0]!.slice(0, 300)}`} data-testid="view-failed" data-view={this.props.view}>
          <Stack gap="xs">
            {message.includes('\n') && (
              <Code block style={{ maxHeight: 200, overflow: 'auto' }}>
                {message}
              </Code>
            )}
            <Text size="xs" c="dimmed">
              The rest of Switchboard keeps working. The error and where it happened are in the developer console.
            </Text>
            <Group>
              <Button size="xs" variant="light" color="red" onClick={this.reload} data-testid="view-reload">
                Reload this view
              </Button>
            </Group>
          </Stack>
        </Alert>
      );
    }
    return (
      <FailIfAsked key={generation} view={this.props.view}>
        {this.props.children}
      </FailIfAsked>
    );
  }
}

function FailIfAsked({ view, children }: { view: string; children: ReactNode }): ReactNode {
  let asked: string | null = null;
  try {
    asked = sessionStorage.getItem(FAIL_VIEW_KEY);
  } catch {
    /* storage unavailable: no hook */
  }
  if (asked === view) throw new Error(`test hook: ${FAIL_VIEW_KEY} asked the ${view} view to fail`);
  return children;
}
