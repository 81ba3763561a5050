/**
 * A start-up failure the operator fixes, not a bug: a busy port, a database that cannot be
 * reached or is held by another process, a migration edited after it was applied. The server
 * and the CLI print its message, which names the setting at fault, as one line without a stack.
 */
export class OperatorError extends Error {
  override name = "OperatorError";
}

/** An error's own words: a connection to a name with two addresses fails as an AggregateError without a message. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== "") return error.message.split("\n")[0] as string;
  if (error instanceof AggregateError) return error.errors.map(errorText).join("; ");
  return (error as NodeJS.ErrnoException).code ?? error.name;
}
