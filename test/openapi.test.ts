import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateOpenApi, OPENAPI_PATH } from "../src/openapi-document.js";

describe("openapi/openapi.json", () => {
  it("is the document the routes generate (run `npm run openapi` after changing a route or schema)", async () => {
    const generated = await generateOpenApi();
    const committed = readFileSync(OPENAPI_PATH, "utf8");
    expect(committed === generated, "openapi/openapi.json is stale: run `npm run openapi` and commit the result").toBe(true);
  });

  it("documents every operation with the error body for 4XX and 5XX", async () => {
    const document = JSON.parse(await generateOpenApi());
    const operations = Object.values(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap((path) => Object.values(path));
    expect(operations.length).toBeGreaterThan(0);
    for (const operation of operations) {
      expect(operation.responses["4XX"]).toEqual({ description: "Default Response", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
      expect(operation.responses["5XX"]).toBeDefined();
    }
  });
});
