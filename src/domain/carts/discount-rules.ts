// cart-pricing.ts still imports the rule from here; it lives in catalog with the codes it judges.
export { discountProblem } from "../catalog/discount-rules.js";
