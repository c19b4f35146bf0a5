/**
 * `node --import bench/cpu-profile-preload.mjs`: profiles the whole process with the inspector
 * and writes `<CPU_PROFILE_DIR>/main-<pid>.cpuprofile` when it exits (SIGTERM included), for
 * processes started by others where `--cpu-prof` cannot be passed (NODE_OPTIONS refuses it).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, `main-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('exit', write);
  process.prependListener('SIGTERM', write);
}
