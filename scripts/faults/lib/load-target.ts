import pg from "pg";
import { cli } from "./server.js";

export interface LoadTarget {
  token: string;
  /** Platform droplets the load installs, one per write. */
  droplets: string[];
}

/**
 * What a fault scenario's load writes to: a company (made by the CLI, as an operator would) and
 * enough catalog droplets for every write to be a distinct installation.
 */
export async function prepareLoadTarget(env: Record<string, string>, databaseUrl: string, company: { name: string; shop: string }, dropletCount: number): Promise<LoadTarget> {
  const { api_token: token } = cli(env, ["companies:create", "--name", company.name, "--shop", company.shop]);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const rows = await admin.query<{ uuid: string }>(
      "INSERT INTO droplets (uuid, name, category, scopes) SELECT gen_random_uuid(), 'Droplet ' || n, 'load', ARRAY['orders:read'] FROM generate_series(1, $1) AS n RETURNING uuid::text AS uuid",
      [dropletCount],
    );
    return { token: token as string, droplets: rows.rows.map((row) => row.uuid) };
  } finally {
    await admin.end();
  }
}
