// The compiler, for the preview frame to load only when the first-render check did not compile
// the artifact (it did not run when the artifact was saved): Sucrase, kept out of the runtime
// the frame loads every time.
import { compile } from "../artifact/compile";

(window as unknown as { countersignCompile?: typeof compile }).countersignCompile = compile;
