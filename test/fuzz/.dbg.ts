import { Fuzzer } from './run';
import type { FuzzCase } from '../fixtures/fuzz/case';
const cases: FuzzCase[] = JSON.parse(process.argv[2]!);
const f = await Fuzzer.start();
for (const c of cases) {
  const r = await f.runCase(c);
  console.log('FAILURES', r.failures.join('\n').slice(0, 3000));
}
const q = await f.host.ok<any>('traceQuery', { limit: 5000 });
for (const e of q.events) if (e.server !== (f as any).healthyId) console.log(e.seq, e.channel, e.kind, e.dir, JSON.stringify(e.rpc ?? ''), (e.text ?? JSON.stringify(e.body) ?? '').slice(0, 200));
await f.close();
