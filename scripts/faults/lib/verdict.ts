/** What a fault script found: each check is printed, and any failure makes the exit code 1. */
export class Verdict {
  private readonly failures: string[] = [];

  constructor(private readonly name: string) {}

  check(ok: boolean, what: string, detail?: unknown): void {
    process.stdout.write(`${ok ? "  ok  " : "  FAIL"} ${what}${!ok && detail !== undefined ? `\n        ${JSON.stringify(detail)}` : ""}\n`);
    if (!ok) this.failures.push(what);
  }

  note(text: string): void {
    process.stdout.write(`       ${text}\n`);
  }

  finish(): never {
    process.stdout.write(this.failures.length === 0 ? `${this.name}: passed\n` : `${this.name}: ${this.failures.length} check(s) failed\n`);
    process.exit(this.failures.length === 0 ? 0 : 1);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
