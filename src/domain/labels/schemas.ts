import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { visibleName } from "../../platform/http/schemas.js";

export const labelListQuery = paginationQuery();

export const labelCreateBody = z.object({
  label: z.object({ name: visibleName(100) }),
});

export const labelSchema = z.object({ id: z.number().int(), name: z.string() }).meta({ id: "Label" });

export type LabelView = z.infer<typeof labelSchema>;
