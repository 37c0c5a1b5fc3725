// The Go sample worker as an OCI image, built by the project's image writer
// (scripts/image/oci-layout.ts) as a Go team's CI would build theirs: one static binary, a user
// 65532 to run it as, nothing else (no shell, no libc). The node agent runs it as a real process
// once it is loaded into the agent's image store (dev/node-agent/image-store.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeOciLayout } from '../../scripts/image/oci-layout.ts';

const run = promisify(execFile);

/** Where the binary is in the image, and the image's entrypoint. */
const SAMPLE_WORKER_GO_BINARY = '/usr/local/bin/sample-worker-go';
const USER_ID = 65532;

export class SampleImageBuildError extends Error {
  override name = 'SampleImageBuildError';
}

/** Builds the image into the OCI layout `layout` (a directory, replaced), tagged `reference`. */
export async function buildSampleWorkerGoImage(layout: string, reference: string): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'twc-sample-worker-go-'));
  try {
    const root = path.join(work, 'root');
    const binary = path.join(root, SAMPLE_WORKER_GO_BINARY);
    await run(
      process.env.GO ?? 'go',
      ['build', '-trimpath', '-buildvcs=false', '-ldflags=-s -w', '-o', binary, '.'],
      // Static: the image has no libc.
      { cwd: import.meta.dirname, env: { ...process.env, CGO_ENABLED: '0' }, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: unknown) => {
      const stderr = (error as { stderr?: string }).stderr?.trim() ?? '';
      throw new SampleImageBuildError(`go build of dev/sample-worker-go failed: ${stderr}`, { cause: error });
    });
    mkdirSync(path.join(root, 'etc'));
    writeFileSync(path.join(root, 'etc/passwd'), `nonroot:x:${USER_ID}:${USER_ID}:nonroot:/:/sbin/nologin\n`);
    writeFileSync(path.join(root, 'etc/group'), `nonroot:x:${USER_ID}:\n`);
    mkdirSync(path.join(root, 'tmp'), { mode: 0o1777 });
    rmSync(layout, { recursive: true, force: true });
    await writeOciLayout(root, layout, {
      user: `${USER_ID}:${USER_ID}`,
      entrypoint: [SAMPLE_WORKER_GO_BINARY],
      env: ['PATH=/usr/local/bin'],
      workingDir: '/',
      epoch: 0,
      reference,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
