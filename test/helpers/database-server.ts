import pg from "pg";

export const TEST_DB_PREFIX = "svc_test_";

export interface DatabaseServer {
  url: string;
  template: string;
  runId: string;
}

export function serverUrl(): string {
  return process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}

export async function withAdminClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
