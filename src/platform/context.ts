import type { Clock } from "./clock.js";
import type { Db } from "./db/database.js";

/** What a service needs to act for one company: explicit, so a service never reaches for globals. */
export interface ServiceContext {
  db: Db;
  clock: Clock;
  companyId: number;
}
