// The compiler (Sucrase), kept out of the runtime the frame loads every time: the console's
// first-render check compiles every saved artifact with it, in a realm where no artifact code
// runs, and the frame loads it only for an artifact that check did not compile.
import { compile } from "../artifact/compile";

(window as unknown as { countersignCompile?: typeof compile }).countersignCompile = compile;
