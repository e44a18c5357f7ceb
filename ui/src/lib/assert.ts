/** Makes a `switch` over a closed union exhaustive: a new kind does not compile until handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled kind: ${JSON.stringify(value)}`);
}
