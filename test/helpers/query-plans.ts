import type { SqlPool } from "../../src/platform/db/sql.js";

/** A node of `EXPLAIN (ANALYZE, FORMAT JSON)`'s plan, with what rowsRead adds up. */
export interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows each table gave up to the plan: returned or filtered away, over every loop. */
export function rowsRead(node: PlanNode, into: Map<string, number>): Map<string, number> {
  const relation = node["Relation Name"];
  if (relation) {
    const perLoop = node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
    into.set(relation, (into.get(relation) ?? 0) + perLoop * node["Actual Loops"]);
  }
  for (const child of node.Plans ?? []) rowsRead(child, into);
  return into;
}

/** How many times the plan scanned each table: once per row of the outer plan for a correlated subquery's scan. */
function scansOf(node: PlanNode, into: Map<string, number>): Map<string, number> {
  const relation = node["Relation Name"];
  if (relation) into.set(relation, (into.get(relation) ?? 0) + node["Actual Loops"]);
  for (const child of node.Plans ?? []) scansOf(child, into);
  return into;
}

/** A pool whose statements are also run under EXPLAIN ANALYZE, adding up the scans of each table (scansOf). */
export function scanCountingPool(sql: SqlPool, scans: Map<string, number>): SqlPool {
  return {
    ...sql,
    async query<Row>(text: string, params?: unknown[]): Promise<Row[]> {
      const [explained] = await sql.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
      scansOf(explained!["QUERY PLAN"][0].Plan, scans);
      return sql.query<Row>(text, params);
    },
  };
}
