/** Canvas colours for the timeline, from the Mantine theme, per colour scheme. */
import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useMemo } from 'react';

export interface TimelinePalette {
  dark: boolean;
  bg: string;
  laneAlt: string;
  serverBand: string;
  separator: string;
  grid: string;
  axisText: string;
  text: string;
  textOnFill: string;
  textOnPending: string;
  rpcOut: string;
  rpcIn: string;
  exchange: string;
  stream: string;
  streamFill: string;
  process: string;
  processFill: string;
  pending: string;
  error: string;
  toolError: string;
  abandoned: string;
  tickOut: string;
  tickIn: string;
  tickMuted: string;
  tickLife: string;
  selection: string;
  selectionEdge: string;
  hover: string;
}

function alpha(hex: string, a: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}

export function useTimelinePalette(): TimelinePalette {
  const theme = useMantineTheme();
  const scheme = useComputedColorScheme('light');
  return useMemo(() => {
    const dark = scheme === 'dark';
    const c = (hue: string, light: number, darkShade: number) => theme.colors[hue]![dark ? darkShade : light]!;
    return {
      dark,
      bg: dark ? theme.colors.dark[7]! : theme.white,
      laneAlt: dark ? 'rgba(255,255,255,0.025)' : 'rgba(0,0,0,0.022)',
      serverBand: dark ? theme.colors.dark[6]! : theme.colors.gray[1]!,
      separator: dark ? theme.colors.dark[5]! : theme.colors.gray[2]!,
      grid: dark ? 'rgba(255,255,255,0.07)' : 'rgba(0,0,0,0.07)',
      axisText: dark ? theme.colors.dark[1]! : theme.colors.gray[7]!,
      text: dark ? theme.colors.dark[0]! : theme.colors.gray[9]!,
      textOnFill: '#ffffff',
      textOnPending: theme.colors.dark[9]!,
      rpcOut: c('indigo', 6, 5),
      rpcIn: c('teal', 6, 5),
      exchange: c('blue', 5, 6),
      stream: c('cyan', 6, 5),
      streamFill: alpha(c('cyan', 5, 7), dark ? 0.35 : 0.22),
      process: c('green', 6, 5),
      processFill: alpha(c('green', 5, 7), dark ? 0.3 : 0.18),
      pending: c('yellow', 6, 5),
      error: c('red', 6, 5),
      toolError: c('orange', 6, 5),
      abandoned: c('gray', 5, 6),
      tickOut: c('indigo', 5, 4),
      tickIn: c('teal', 6, 4),
      tickMuted: c('gray', 5, 5),
      tickLife: c('violet', 6, 4),
      selection: alpha(c('indigo', 5, 4), 0.16),
      selectionEdge: c('indigo', 6, 4),
      hover: dark ? '#ffffff' : '#000000',
    };
  }, [theme, scheme]);
}
