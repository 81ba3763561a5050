/**
 * A metafield's value is text; `value_type` says how a reader should take it, and a value that
 * cannot be read that way is refused on write.
 */
export const VALUE_TYPES = ["string", "integer", "boolean", "json"] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** Why `value` cannot be read as `valueType`, or null when it can. */
export function valueRefusal(valueType: ValueType, value: string): string | null {
  switch (valueType) {
    case "string":
      return null;
    case "integer":
      return INTEGER.test(value) && Number.isSafeInteger(Number(value)) ? null : "must be a whole number (as text) for value_type integer";
    case "boolean":
      return value === "true" || value === "false" ? null : 'must be "true" or "false" for value_type boolean';
    case "json":
      try {
        JSON.parse(value);
        return null;
      } catch {
        return "must be valid JSON text for value_type json";
      }
  }
}
