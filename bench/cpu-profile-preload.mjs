/**
 * `node --import bench/cpu-profile-preload.mjs`: profiles the whole process with the inspector
 * and writes `<CPU_PROFILE_DIR>/main-<pid>.cpuprofile` when it exits (SIGTERM included), for
 * processes started by others where `--cpu-prof` cannot be passed (NODE_OPTIONS refuses it).
 *
 * With ALLOC_PROFILE_DIR it samples allocations too (the inspector's sampling heap profiler, a
 * sample per 16 KiB, objects the GC collected kept in the profile): where a process's garbage
 * comes from, not only what it holds at the end. Written as `<ALLOC_PROFILE_DIR>/main-<pid>.heapprofile`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/** Calls `stop` once, when the process exits or is sent SIGTERM. */
function atExit(stop) {
  let stopped = false;
  const once = () => {
    if (stopped) return;
    stopped = true;
    stop();
  };
  process.on('exit', once);
  process.prependListener('SIGTERM', once);
}

function connected() {
  const session = new Session();
  session.connect();
  return session;
}

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = connected();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  atExit(() =>
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, `main-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    }),
  );
}

const allocDir = process.env.ALLOC_PROFILE_DIR;
if (allocDir) {
  const session = connected();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  atExit(() =>
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(join(allocDir, `main-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    }),
  );
}
