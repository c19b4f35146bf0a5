import { describe, expect, it } from 'vitest';
import { PushGate, type PushSocket } from '../../main/adapters/web/push-gate';

/** A socket stand-in whose queue the test fills and drains: the unit under test is the gate's policy. */
class QueueSocket implements PushSocket {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  send(data: string): void {
    this.sent.push(data);
    this.bufferedAmount += data.length;
  }
}

describe('PushGate', () => {
  it('sends while the socket keeps up', () => {
    const socket = new QueueSocket();
    const gate = new PushGate(socket, (frame) => socket.send(frame), { highWater: 100, lowWater: 10 });
    gate.push('a');
    gate.push('b');
    expect(socket.sent).toEqual(['a', 'b']);
    expect(gate.behind).toBe(0);
    expect(gate.poll()).toBe(false);
  });

  it('holds pushes back above the high-water mark and sends one resync once drained below the low one', () => {
    const socket = new QueueSocket();
    const gate = new PushGate(socket, (frame) => socket.send(frame), { highWater: 100, lowWater: 10 });
    gate.push('x'.repeat(150));
    for (let i = 0; i < 1000; i++) gate.push(`event ${i}`);
    expect(socket.sent).toHaveLength(1);
    expect(gate.behind).toBe(1000);
    socket.bufferedAmount = 50; // draining, still above the low-water mark
    expect(gate.poll()).toBe(false);
    gate.push('still held');
    expect(socket.sent).toHaveLength(1);
    socket.bufferedAmount = 0;
    expect(gate.poll()).toBe(true);
    const resync = JSON.parse(socket.sent[1]!);
    expect(resync).toMatchObject({ type: 'event', event: 'resync', payload: { held: 1001 } });
    expect(gate.behind).toBe(0);
    gate.push('live again');
    expect(socket.sent.at(-1)).toBe('live again');
  });

  it('sends nothing to a closed socket', () => {
    const socket = new QueueSocket();
    socket.readyState = 3;
    const gate = new PushGate(socket, (frame) => socket.send(frame));
    gate.push('a');
    expect(socket.sent).toEqual([]);
  });
});
