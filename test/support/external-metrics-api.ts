// The cluster has one external metrics APIService (v1beta1.external.metrics.k8s.io): the tests
// that register it, or ask the API server to accept one, take turns. A turn is a directory in
// the shared environment's, made and removed (mkdir is atomic), so that the processes of the
// test files exclude each other.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { sharedEnvironment } from './environment.ts';

/** Resolves once this test may register the APIService, with what ends its turn: call it once the APIService is gone. */
export async function holdExternalMetricsApi(): Promise<() => Promise<void>> {
  const turn = path.join(sharedEnvironment().dir, 'external-metrics-api.turn');
  for (;;) {
    try {
      await mkdir(turn);
      return () => rm(turn, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
