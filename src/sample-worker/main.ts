// Runs one sample worker from this process's environment: the form it takes in a real container.
import { NativeConnection } from '@temporalio/worker';
import { followApiKeyFile } from './api-key-file.ts';
import { readConfig } from './config.ts';
import { bundleSampleWorkflows, connectionOptions, createSampleWorker } from './worker.ts';

const config = readConfig(process.env);
const connection = await NativeConnection.connect(connectionOptions(config));
const unfollow = config.apiKeyPath
  ? followApiKeyFile(connection, config.apiKeyPath, config.apiKey ?? '', (error) =>
      console.error(`reading ${config.apiKeyPath}: ${String(error)}`),
    )
  : () => {};
const worker = await createSampleWorker(
  config,
  { connection, workflowBundle: await bundleSampleWorkflows() },
  `${process.pid}@${config.buildId}`,
  {
    inMainThread: false,
  },
);
await worker.run();
unfollow();
await connection.close();
