// Loaded into `twc run` by the footprint bench with --profile (NODE_OPTIONS=--import): the first
// SIGUSR2 starts a CPU profile, the second stops it and writes it, then a heap snapshot, into
// TWC_PROFILE_DIR as TWC_PROFILE_NAME.cpuprofile and .heapsnapshot (renamed into place when
// complete). Only the window between the signals is profiled, not the start.
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

const dir = process.env.TWC_PROFILE_DIR ?? '.';
const name = process.env.TWC_PROFILE_NAME ?? `twc-${process.pid}`;
const session = new Session();
session.connect();
let profiling = false;

process.on('SIGUSR2', () => {
  void toggle().catch((error: unknown) => console.error(`profile-hook: ${String(error)}`));
});

async function toggle(): Promise<void> {
  if (!profiling) {
    profiling = true;
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  const file = (ext: string) => path.join(dir, `${name}.${ext}`);
  writeFileSync(`${file('cpuprofile')}.part`, JSON.stringify(profile));
  renameSync(`${file('cpuprofile')}.part`, file('cpuprofile'));
  writeHeapSnapshot(`${file('heapsnapshot')}.part`);
  renameSync(`${file('heapsnapshot')}.part`, file('heapsnapshot'));
}
