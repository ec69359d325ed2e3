// The mocha setup of `pnpm mutate`: one fixed fast-check seed (unless FC_SEED is given), so that a
// mutant is killed or not the same way in every run and incremental runs can reuse earlier results.
process.env['FC_SEED'] ??= '20270101';
await import('../mocha-setup.mjs');
