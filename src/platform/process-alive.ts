import { readFileSync } from "node:fs";
import { basename } from "node:path";

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * When the process started, in clock ticks since boot (/proc/<pid>/stat's starttime), or
 * undefined where there is no /proc. With the pid it names one process: a later process given
 * the same pid (after a crash, or after a reboot) started at another tick.
 */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: the fields after it are counted from state (field 3).
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Whether the process runs node, or undefined where there is no /proc to tell. */
export function isNodeProcess(pid: number): boolean | undefined {
  try {
    const executable = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
    return /node/.test(basename(executable));
  } catch {
    return undefined;
  }
}
