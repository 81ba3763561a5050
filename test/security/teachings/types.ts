import type { Db } from "../../../src/platform/db/database.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";

/**
 * How the security suites exercise an operation they found in the OpenAPI document. One entry
 * per operation, keyed "METHOD /path/{param}" as the document writes it; an operation without
 * one fails both suites ("teach me: ..."), so a new route is never silently skipped.
 */
export interface TeachingContext {
  db: Db;
  call: Call;
  /** The company whose resources the request touches. */
  owner: CompanyFixture;
}

export interface TaughtRequest {
  /** Path parameters, unencoded. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** Extra headers (a cart operation's own credential); bearer operations get the token of whoever calls. */
  headers?: Record<string, string>;
  /**
   * Strings that identify the owner's resources (uuids, slugs, tokens): another company's answer
   * must contain none of them.
   */
  markers?: string[];
}

/** What another company's token gets for the owner's request. */
export type Isolation =
  /** 404 and nothing changed: the owner's resource does not exist for anyone else. */
  | { expect: "not_found" }
  /** 422 whose `errors` name these fields (the foreign ids of a body or a bulk operation); nothing changed. */
  | { expect: "foreign_reference"; fields: string[] }
  /** 2xx listing the caller's own rows only: none of the markers; nothing changed. */
  | { expect: "own_rows_only" }
  /**
   * 2xx writing the caller's own rows only, for a request that names nothing of anyone else's
   * (a create without references, an upsert keyed by shared reference data such as a country):
   * no row of another company, nor any row without a company, changes or disappears; none of
   * the markers in the answer. The owner's identical request then succeeds as well, which also
   * proves that what is unique per company (a SKU, a code, a slug) is not unique across them.
   */
  | { expect: "own_rows_written" };

export interface Teaching {
  /**
   * Creates what the operation needs, owned by `ctx.owner`, and returns a request that
   * succeeds (2xx) when the owner sends it. Runs afresh for each suite that uses it.
   */
  setup(ctx: TeachingContext): Promise<TaughtRequest>;
  /** Required for admin and company-server operations (those taking a company token). */
  isolation?: Isolation;
}

export type Teachings = Record<string, Teaching>;
