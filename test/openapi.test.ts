import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateOpenApi, OPENAPI_PATH } from "../src/openapi-document.js";

describe("openapi/openapi.json", () => {
  it("is the document the routes generate (run `npm run openapi` after changing a route or schema)", async () => {
    const generated = await generateOpenApi();
    const committed = readFileSync(OPENAPI_PATH, "utf8");
    expect(committed === generated, "openapi/openapi.json is stale: run `npm run openapi` and commit the result").toBe(true);
  });

  it("documents every operation with its surface's error body for 4XX and 5XX: PublicError on the public SDK, Error elsewhere", async () => {
    const document = JSON.parse(await generateOpenApi());
    const operations = Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, item]) =>
      Object.values(item).map((operation) => ({ path, operation })),
    );
    expect(operations.filter(({ path }) => path.startsWith("/api/public/")).length).toBeGreaterThan(0);
    expect(operations.filter(({ path }) => !path.startsWith("/api/public/")).length).toBeGreaterThan(0);
    for (const { path, operation } of operations) {
      const errorBody = { description: "Default Response", content: { "application/json": { schema: { $ref: `#/components/schemas/${path.startsWith("/api/public/") ? "PublicError" : "Error"}` } } } };
      expect(operation.responses["4XX"], path).toEqual(errorBody);
      expect(operation.responses["5XX"], path).toEqual(errorBody);
    }
  });

  it("lists the error body with a required status and an optional ResponseMetadata in PublicError", async () => {
    const { Error: error, PublicError: publicError } = JSON.parse(await generateOpenApi()).components.schemas;
    expect(publicError.properties.status).toMatchObject({ type: "integer", minimum: 400, maximum: 599 });
    expect(publicError.properties.metadata).toMatchObject({ $ref: "#/components/schemas/ResponseMetadata" });
    expect(publicError.required.sort()).toEqual([...error.required, "status"].sort());
    expect(Object.keys(publicError.properties).sort()).toEqual([...Object.keys(error.properties), "metadata", "status"].sort());
    expect(error.properties).not.toHaveProperty("status");
  });

  it("shows the cart's attribution email in the public SDK's email format", async () => {
    const document = JSON.parse(await generateOpenApi());
    const { attribution } = document.paths["/api/carts/{cart_token}/attribution"].patch.requestBody.content["application/json"].schema.properties;
    const emailShape = attribution.anyOf.find((shape: { properties: Record<string, unknown> }) => "email" in shape.properties);
    // The public SDK also takes null for an absent signal: its email is the non-null branch.
    const publicEmail = document.components.schemas.AttributionInput.properties.email.anyOf.find((branch: { type: string }) => branch.type === "string");
    expect(emailShape.properties.email).toEqual(publicEmail);
    expect(emailShape.properties.email.format).toBe("email");
  });
});
