// Global fast-check settings, set once for every property in the suite.
// FC_NUM_RUNS raises the run count for a deeper search (e.g. FC_NUM_RUNS=2000 pnpm test);
// FC_SEED replays a failing run with the seed fast-check printed.
import fc from 'fast-check';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100);
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
fc.configureGlobal({ numRuns, ...(seed === undefined ? {} : { seed }), endOnFailure: false });
