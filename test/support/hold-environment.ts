// Starts an environment and holds it until killed: the test of what a killed owner leaves behind.
import { startEnvironment } from '../../src/localenv/environment.ts';

const environment = await startEnvironment({ log: () => {} });
console.log(`ready ${environment.dir}`);
setInterval(() => {}, 1 << 30);
