// Loaded into `twc run` by the footprint bench with --profile (NODE_OPTIONS=--import): the first
// SIGUSR2 starts a CPU profile and samples allocations, the second stops both and writes them, then
// a heap snapshot, into TWC_PROFILE_DIR as TWC_PROFILE_NAME.cpuprofile, .heapprofile (every
// allocation sampled, collected since or not: what makes the collector run) and .heapsnapshot
// (renamed into place when complete). Only the window between the signals is profiled, not the start.
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
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  const { profile: allocations } = await session.post('HeapProfiler.stopSampling');
  const file = (ext: string) => path.join(dir, `${name}.${ext}`);
  const write = (ext: string, value: unknown) => {
    writeFileSync(`${file(ext)}.part`, JSON.stringify(value));
    renameSync(`${file(ext)}.part`, file(ext));
  };
  write('cpuprofile', profile);
  write('heapprofile', allocations);
  writeHeapSnapshot(`${file('heapsnapshot')}.part`);
  renameSync(`${file('heapsnapshot')}.part`, file('heapsnapshot'));
}
