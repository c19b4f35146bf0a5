/**
 * How much CPU a server's notifications cost the client: the SDK's Client against ours
 * (main/core/connection/sdk-client.ts, which hands a notification straight to the Client's
 * dispatch instead of through the SDK's four-schema classification). Both in this process, each
 * with its own plain Streamable HTTP connection to the everything fixture (legacy era, sessions
 * on); rounds alternate ABBA, each round one `flood` call whose POST stream carries N
 * notifications/message. Prints each side's median CPU µs per notification and their ratio,
 * measured in this run, then one JSON line.
 *
 *   npx tsx bench/notification-dispatch.ts [notifications per round] [rounds]   (default 5,000 × 12)
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SwitchboardClient } from '../main/core/connection/sdk-client';
import { startFixture } from '../test/fixtures/everything/harness';
import { median } from './stats';

const perRound = Number(process.argv[2] ?? 5_000);
const rounds = Number(process.argv[3] ?? 12);

const fixture = await startFixture({ transport: 'http', era: 'legacy' });
const options = { versionNegotiation: { mode: 'legacy' as const } };
const sides = { sdk: new Client({ name: 'bench-sdk', version: '0' }, options), ours: new SwitchboardClient({ name: 'bench-ours', version: '0' }, options) };
type Side = keyof typeof sides;
const received: Record<Side, number> = { sdk: 0, ours: 0 };
const cpu: Record<Side, number[]> = { sdk: [], ours: [] };

try {
  for (const side of ['sdk', 'ours'] as const) {
    sides[side].setNotificationHandler('notifications/message', () => void received[side]++);
    await sides[side].connect(new StreamableHTTPClientTransport(new URL(fixture.url)));
  }
  const round = async (side: Side, record: boolean) => {
    received[side] = 0;
    const start = process.cpuUsage();
    // The result follows every notification on the same stream: when it resolves, all were handled.
    await sides[side].callTool({ name: 'flood', arguments: { count: perRound } }, { timeout: 120_000 });
    const used = process.cpuUsage(start);
    if (received[side] !== perRound) throw new Error(`${side}: ${received[side]} of ${perRound} notifications`);
    if (record) cpu[side].push((used.user + used.system) / perRound);
  };
  // Warm-up: both sides, not recorded.
  await round('sdk', false);
  await round('ours', false);
  for (let i = 0; i < rounds; i++) {
    const order: Side[] = i % 2 === 0 ? ['sdk', 'ours'] : ['ours', 'sdk'];
    for (const side of order) await round(side, true);
  }
  const sdk = median(cpu.sdk);
  const ours = median(cpu.ours);
  console.log(`notification dispatch, ${rounds} rounds of ${perRound.toLocaleString('en')} notifications/message over Streamable HTTP (client process CPU, server excluded):`);
  console.log(`  SDK Client          ${sdk.toFixed(1)} µs per notification`);
  console.log(`  SwitchboardClient   ${ours.toFixed(1)} µs per notification`);
  console.log(`  ratio ours/SDK      ${(ours / sdk).toFixed(3)}`);
  console.log(JSON.stringify({ bench: 'notification-dispatch', perRound, rounds, sdkUsPerNotification: sdk, oursUsPerNotification: ours, ratio: ours / sdk }));
} finally {
  await Promise.allSettled([sides.sdk.close(), sides.ours.close()]);
  await fixture.close();
}
