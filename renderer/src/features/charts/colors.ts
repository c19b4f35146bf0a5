/** Chart colours from the Mantine theme, per colour scheme (SVG attributes cannot read CSS variables reliably). */
import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useMemo } from 'react';
import type { Channel } from '../../../../contract/trace';
import type { ErrorClass } from './series';

const CHANNEL_HUES: Record<Channel, string> = {
  'post-json': 'blue',
  'post-sse': 'violet',
  get: 'teal',
  resumption: 'lime',
  delete: 'gray',
  listen: 'cyan',
  discovery: 'grape',
  auth: 'yellow',
  'legacy-sse': 'pink',
  'legacy-post': 'orange',
  stdio: 'green',
  lifecycle: 'dark',
  app: 'red',
};

const ERROR_HUES: Record<ErrorClass, string> = { http4xx: 'orange', http5xx: 'red', rpc: 'grape', transport: 'yellow' };
const METHOD_HUES = ['indigo', 'teal', 'orange', 'pink'];

export interface ChartColors {
  dark: boolean;
  channel(channel: Channel): string;
  error(cls: ErrorClass): string;
  method(index: number): string;
  accent: string;
  ping: string;
  grid: string;
  axis: string;
  text: string;
  tooltipBg: string;
  tooltipBorder: string;
  cursor: string;
}

export function useChartColors(): ChartColors {
  const theme = useMantineTheme();
  const scheme = useComputedColorScheme('light');
  return useMemo(() => {
    const dark = scheme === 'dark';
    const shade = dark ? 4 : 6;
    const pick = (hue: string, s = shade) => theme.colors[hue]?.[s] ?? theme.colors.gray![s]!;
    return {
      dark,
      channel: (channel) => pick(CHANNEL_HUES[channel] === 'dark' ? 'gray' : CHANNEL_HUES[channel]),
      error: (cls) => pick(ERROR_HUES[cls]),
      method: (index) => pick(METHOD_HUES[index % METHOD_HUES.length]!),
      accent: pick('indigo'),
      ping: pick('cyan'),
      grid: dark ? theme.colors.dark![4]! : theme.colors.gray![2]!,
      axis: dark ? theme.colors.dark![2]! : theme.colors.gray![6]!,
      text: dark ? theme.colors.dark![0]! : theme.black,
      tooltipBg: dark ? theme.colors.dark![7]! : theme.white,
      tooltipBorder: dark ? theme.colors.dark![4]! : theme.colors.gray![3]!,
      cursor: dark ? 'rgba(255,255,255,0.25)' : 'rgba(0,0,0,0.15)',
    };
  }, [theme, scheme]);
}
