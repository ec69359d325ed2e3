// A relay in a process of its own, for the crash test of the events (docs/rules.md §15): it
// connects to MONGODB_URI, runs the relay loop (lease, move, clear) until it is killed, and says
// `ready` once it runs. The test kills it with SIGKILL at random moments, as it kills the servers.
import { EventRelay, RelayLoop } from '@petstore/domain';
import { connectMongo } from '@petstore/adapters-mongo';

const stores = await connectMongo(process.env['MONGODB_URI'] ?? '');
const relay = new EventRelay(stores.events, { now: () => Date.now() }, `relay-worker-${process.pid}`);
new RelayLoop(relay, stores.events, globalThis, { onError: () => undefined }).start();
process.stdout.write('ready\n');
