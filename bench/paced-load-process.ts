import { type PacedLoad, runPacedLoad } from "./paced-load.js";

// The paced rounds' load generator as a process of its own (see startPacedLoadProcess): it runs each
// load its parent sends, one at a time, reports the round (or why there is none), and exits when
// its parent lets go of it.

process.on("message", (load: PacedLoad) => {
  runPacedLoad(load).then(
    (round) => process.send?.({ round }),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
