// `npm run build:binaries`: builds the local environment's binaries into the cache.
import { BinaryBuildError, ensureBinaries } from './binaries.ts';

try {
  const paths = await ensureBinaries();
  console.log(`kube:     ${paths.kube}\ntemporal: ${paths.temporal}\ntemporal, newer: ${paths.temporalNext}`);
} catch (error) {
  console.error(error instanceof BinaryBuildError ? error.message : error);
  process.exit(1);
}
