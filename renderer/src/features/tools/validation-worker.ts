/**
 * The worker side of validation.ts: checks run in a module worker that is terminated when one
 * takes longer than VALIDATION_TIMEOUT_MS (the only way to stop a runaway regular expression).
 * Imported for its effect by the Tools view; a worker that cannot start leaves checks on the
 * main thread.
 */
import { VALIDATION_TIMEOUT_MS, installRunner, type ValidateReply, type ValidateRequest } from './validation';

let worker: Worker | null = null;
let workerBroken = false;
let nextId = 1;
const pending = new Map<number, { resolve(reply: ValidateReply): void; timer: ReturnType<typeof setTimeout> }>();

function failAll(message: string): void {
  for (const [id, p] of pending) {
    clearTimeout(p.timer);
    p.resolve({ id, ok: false, message });
  }
  pending.clear();
}

function getWorker(): Worker | null {
  if (workerBroken) return null;
  if (worker) return worker;
  try {
    worker = new Worker(new URL('./validate.worker.ts', import.meta.url), { type: 'module', name: 'schema-validation' });
  } catch {
    workerBroken = true;
    return null;
  }
  worker.onmessage = (event: MessageEvent<ValidateReply>) => {
    const p = pending.get(event.data.id);
    if (!p) return;
    clearTimeout(p.timer);
    pending.delete(event.data.id);
    p.resolve(event.data);
  };
  worker.onerror = () => {
    // A worker that cannot load (or crashes) is replaced by main-thread validation.
    workerBroken = true;
    worker?.terminate();
    worker = null;
    failAll('worker-unavailable');
  };
  return worker;
}

function runInWorker(request: Omit<ValidateRequest, 'id'>): Promise<ValidateReply> | null {
  const w = getWorker();
  if (!w) return null;
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      // Terminating is the only way to stop a runaway regular expression.
      w.terminate();
      if (worker === w) worker = null;
      pending.delete(id);
      failAll('timeout');
      resolve({ id, ok: false, message: 'timeout' });
    }, VALIDATION_TIMEOUT_MS);
    pending.set(id, { resolve, timer });
    try {
      w.postMessage({ ...request, id });
    } catch (error) {
      clearTimeout(timer);
      pending.delete(id);
      resolve({ id, ok: false, message: (error as Error).message });
    }
  });
}

installRunner(runInWorker);
