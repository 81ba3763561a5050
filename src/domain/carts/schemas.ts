import { z } from "zod";
import { languageParam } from "../../platform/http/language.js";
import { blankAsNull, blankFilter, errorBodySchema, httpUrl, idParam, int32Id, metaSchema, optionalOrBlank, optionalOrNull, timeZone, trimmedEmail } from "../../platform/http/schemas.js";
import { attributionMembers, NO_ATTRIBUTION_SIGNAL, severalAttributionSignals, signalsNamed } from "../affiliates/schemas.js";
import { agreementSchema } from "../agreements/schemas.js";
import { countryCode } from "../catalog/fields.js";

// Request and response shapes of the cart surface. The response schemas are the contract
// storefronts read: the OpenAPI document is generated from them and tests parse every cart
// response with them.

const MAX_QUANTITY = 10_000;

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

export const cartTokenParams = z.object({
  cart_token: z.string().regex(/^ct_[0-9A-Za-z]{22}$/).describe("The cart token (ct_ + 22 base62 characters)"),
});
export const cartItemParams = cartTokenParams.extend({
  item_id: idParam.describe("A line of the cart"),
});

const metadataObject = z.record(z.string(), z.unknown());

/**
 * The public SDK's attribution object, held to a cart's rule: it stores one signal, so exactly
 * one is named (a null signal is an absent one there too). A member that is none of the five is
 * refused by name rather than dropped: it would not be stored.
 */
const attributionInput = z
  .strictObject(attributionMembers)
  .superRefine((value, ctx) => {
    const named = signalsNamed(value);
    if (named.length === 0) ctx.addIssue({ code: "custom", message: NO_ATTRIBUTION_SIGNAL });
    if (named.length > 1) ctx.addIssue({ code: "custom", message: severalAttributionSignals(named) });
  })
  .describe("Exactly one signal naming the referring rep");

// Optional members of cart create read null as absent (optionalOrNull), as in the public SDK:
// storefront scripts send `null` for "none" (`session_uuid: sdk.session ?? null`). Those of a
// checked format, or that a blank cannot name anything in, read a blank as absent too
// (optionalOrBlank): an empty form input or `sdk.session || ""` sends one. Members with a default
// take it for null too. Required members stay required, null included.

const createItemInput = z.object({
  variant_id: int32Id,
  quantity: z.number().int().min(1).max(MAX_QUANTITY),
  display_to_customer: optionalOrNull(z.boolean()),
  subscription: optionalOrNull(z.boolean()),
  subscription_plan_id: optionalOrNull(int32Id),
  cv: optionalOrNull(z.number().int()).describe("Accepted for compatibility; volumes come from the catalog (update_volumes sets them)"),
  qv: optionalOrNull(z.number().int()).describe("Accepted for compatibility; volumes come from the catalog (update_volumes sets them)"),
  price: optionalOrNull(z.number()).describe("Accepted for compatibility; prices always come from the catalog"),
  parent_id: optionalOrNull(int32Id).describe("Accepted for compatibility; bundled items are set with PATCH .../bundled_items"),
  title: optionalOrNull(z.string().max(500)).describe("Accepted for compatibility; titles come from the catalog"),
  image_url: optionalOrNull(z.string().max(2000)).describe("Accepted for compatibility; images come from the catalog"),
});

export const createCartBody = z.object({
  country_code: countryCode.describe("ISO 3166 two-letter code: prices, currency and tax follow it"),
  svc_shop: z.string().min(1).max(253).describe("The shop's domain without scheme, or its first label"),
  visitor_token: optionalOrBlank(z.string().min(1).max(200)).meta({ deprecated: true, description: "Deprecated: use session_uuid" }),
  session_uuid: optionalOrBlank(z.string().min(1).max(200)),
  items: optionalOrNull(z.array(createItemInput).max(100)),
  immutable_items: optionalOrNull(z.boolean()).pipe(z.boolean().default(false)).describe("Default false, for null too"),
  source: optionalOrBlank(z.enum(["web", "mobile", "external", "admin"])),
  attribution: optionalOrNull(attributionInput),
  order_confirmation_url: optionalOrBlank(httpUrl).describe("Where checkout sends the buyer after the order (an http(s) URL); may contain an {order_token} placeholder"),
  order_failure_url: optionalOrBlank(httpUrl).describe("Where a failed external payment returns (an http(s) URL); defaults to the checkout page"),
  timezone: optionalOrBlank(timeZone).pipe(z.string().default("UTC")).describe("An IANA time zone; default UTC, for null or blank too"),
  enrollment_pack_id: optionalOrNull(int32Id),
});

export const createCartQuery = z.object({ jwt: z.string().max(4096).optional().describe("A rep or customer token (JWT)") });

export const showCartQuery = z.object({
  payment_methods_includes: z
    .string()
    .max(200)
    .optional()
    .transform((names) => (names ?? "").split(",").map((name) => name.trim()))
    .describe("Comma-separated extras for available_payment_methods: saved_payment_methods adds the cart customer's saved methods"),
});

const shippingMethodChoice = z.object({ id: int32Id }).nullable().describe("Selects a shipping method of the cart's country; null clears the chosen one");

export const updateCartBody = z.object({
  email: blankAsNull(trimmedEmail).describe("null or blank clears it"),
  phone: blankAsNull(z.string().max(50)).describe("null or blank clears it"),
  email_marketing: z.boolean().nullable().optional(),
  sms_marketing: z.boolean().nullable().optional(),
  shipping_method: shippingMethodChoice.optional(),
});

export const selectShippingMethodBody = z.object({ shipping_method: shippingMethodChoice });

const addressInput = z.object({
  id: int32Id.optional(),
  first_name: z.string().max(100).optional(),
  last_name: z.string().max(100).optional(),
  address1: z.string().min(1).max(300),
  address2: z.string().max(300).optional(),
  city: z.string().min(1).max(100),
  state: z.string().max(100).optional(),
  postal_code: z.string().max(20).optional(),
  country_code: optionalOrBlank(countryCode).describe("Or country_id; when both are sent they must name the same country. Null or blank: not sent"),
  country_id: int32Id.optional(),
  phone: z.string().max(50).optional(),
});

export const addressBody = z.object({
  type: z.enum(["ship_to", "bill_to"]),
  use_shipping_address_for_billing: z
    .boolean()
    .optional()
    .describe("true: bill_to follows ship_to (now, and whenever ship_to changes; needs a ship_to). false: it stops. Absent: unchanged, except that a bill_to address ends it"),
  jwt: blankAsNull(z.string().max(4096)).describe("A customer token: attaches that customer to the cart; null or empty: none, as on cart create"),
  address_id: int32Id.nullable().optional(),
  address: addressInput.nullable().optional().describe("The `type` address; required unless the request only changes use_shipping_address_for_billing or attaches a customer"),
});

/** What a discount_codes list without a code is told, by the schemas and by applyDiscountCodes alike. */
export const NO_DISCOUNT_CODE = "must name at least one code";
const discountCode = z.string().min(1).max(100);
const discountCodes = z.array(discountCode).min(1, NO_DISCOUNT_CODE).max(20);

/**
 * Adding and removing codes take one shape. Both members may be sent: the service sees one
 * list, `discount_code` last.
 */
export const discountCodesBody = z
  .object({
    discount_codes: discountCodes.optional(),
    discount_code: discountCode.optional().describe("A single code, as older storefront scripts send"),
  })
  .transform(({ discount_codes = [], discount_code }) => ({ discount_codes: discount_code === undefined ? discount_codes : [...discount_codes, discount_code] }));

export const appendMetadataBody = z.object({ metadata: metadataObject });
export const replaceMetadataBody = z.object({ metadata: metadataObject });
export const removeMetadataBody = z.object({
  cart: z.object({ metadata: z.array(z.string().min(1).max(500)).max(200).describe("Keys to remove; dot notation for nested keys") }),
});
export const jsonDataBody = z.object({ json_data: metadataObject });

// A blank plan id (a URL built as `?subscription_plan_id=${planId ?? ""}`) names no plan: the default one.
export const subscribeQuery = z.object({ subscription_plan_id: blankFilter(idParam).describe("The plan to use; absent or empty: the product's default plan") });

export const bundledItemsBody = z.object({
  bundled_items: z
    .array(
      z.object({
        variant_id: z.number().int(),
        quantity: z.number().int().min(0).max(MAX_QUANTITY).describe("0 removes the entry"),
        display_to_customer: z.boolean(),
      }),
    )
    .max(100),
});

export const updateVolumesBody = z.object({ cv: z.number().int().min(0).max(1_000_000_000).optional(), qv: z.number().int().min(0).max(1_000_000_000).optional() });

export const changeVariantBody = z.object({ variant_id: int32Id, quantity: z.number().int().min(1).max(MAX_QUANTITY).optional() });

export const attributionBody = z.object({ attribution: attributionInput });

export const savedPaymentMethodBody = z.object({ payment_method_id: int32Id });

export const addItemsBody = z.object({
  items: z
    .array(
      z.object({
        variant_id: int32Id,
        quantity: z.number().int().min(0).max(MAX_QUANTITY).describe("Added to the variant's line; with item_id it sets that line's quantity; 0 removes"),
        subscription: optionalOrNull(z.boolean()),
        subscription_plan_id: optionalOrNull(int32Id),
        item_id: optionalOrNull(int32Id),
        display_to_customer: optionalOrNull(z.boolean()),
      }),
    )
    .min(1)
    .max(100),
});
export const removeItemsBody = z.object({ items: z.array(z.object({ variant_id: int32Id })).min(1).max(100) });

export const changeLanguageBody = z.object({ language_iso: languageParam.describe("A supported language (fr, or a locale such as fr_CA)") });
export const updateCountryBody = z.object({ country_code: countryCode });

export type CreateCartInput = z.infer<typeof createCartBody>;
export type AttributionInput = z.infer<typeof attributionInput>;
export type AddressBodyInput = z.infer<typeof addressBody>;
export type AddressInput = z.infer<typeof addressInput>;
export type UpdateCartInput = z.infer<typeof updateCartBody>;

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

const amount = z.string().regex(/^-?\d+(\.\d+)?$/).describe("Decimal with the currency's decimal places");
const display = z.string().describe("Display text with the currency symbol");

const userSummary = z
  .object({
    id: z.number().int(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string(),
    username: z.string().nullable(),
    image_url: z.string().nullable(),
  })
  .meta({ id: "CartRep" });

const productSummary = z.object({
  id: z.number().int(),
  title: z.string(),
  sku: z.string(),
  image_url: z.string().describe('"" when the product has no image'),
  image_path: z.string().nullable(),
  price: amount,
  price_in_currency: display,
  cv: z.number().int(),
  tax: amount,
});

const variantSummary = z.object({
  id: z.number().int(),
  sku: z.string(),
  title: z.string().nullable(),
  image_url: z.string().nullable(),
  image_path: z.string().nullable(),
  primary_image: z.string().nullable(),
  price: amount,
  price_in_currency: display,
});

const itemFields = {
  id: z.number().int(),
  variant_id: z.number().int(),
  quantity: z.number().int(),
  price: amount.describe("Unit price (rep price for a rep's cart, plan-adjusted when subscribed)"),
  price_in_currency: display,
  subtotal: amount.describe("price x quantity"),
  subtotal_in_currency: display,
  tax: amount.describe("Tax of the line"),
  tax_in_currency: display,
  cv: z.number().int().describe("Unit commissionable volume"),
  qv: z.number().int().describe("Unit qualifying volume"),
  cv_in_currency: display,
  qv_in_currency: display,
  subscription: z.boolean(),
  subscription_plan_id: z.number().int().nullable(),
  enrollment: z.boolean(),
  display_to_customer: z.boolean(),
  parent_id: z.number().int().nullable(),
  product_title: z.string(),
  variant_title: z.string().nullable(),
  variant_image: z.string().nullable(),
  product: productSummary,
  variant: variantSummary,
};

const bundledCartItem = z.object(itemFields).meta({ id: "CartBundledItem" });
const cartItem = z.object({ ...itemFields, bundled_items: z.array(bundledCartItem) }).meta({ id: "CartItem" });

const shippingMethodView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    price: amount,
    price_in_currency: display,
    free_over: amount.nullable(),
    free_over_in_currency: display.nullable(),
  })
  .meta({ id: "CartShippingMethod" });

const addressView = z
  .object({
    id: z.number().int().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    address1: z.string(),
    address2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postal_code: z.string().nullable(),
    country_code: z.string(),
    country_id: z.number().int(),
    phone: z.string().nullable(),
  })
  .meta({ id: "CartAddress" });

const attributionView = z
  .union([
    z.object({ id: z.number().int(), share_guid: z.string() }),
    z.object({ id: z.number().int(), svc_rep_id: z.number().int() }),
    z.object({ id: z.number().int(), email: z.string() }),
    z.object({ id: z.number().int(), username: z.string() }),
    z.object({ id: z.number().int(), external_id: z.string() }),
  ])
  .meta({ id: "CartAttribution" });

const paymentMethodView = z
  .union([
    z.object({
      id: z.number().int(),
      type: z.literal("credit_card"),
      card_type: z.string().nullable(),
      last_four: z.string().nullable(),
      exp_month: z.number().int().nullable(),
      exp_year: z.number().int().nullable(),
    }),
    z.object({ id: z.number().int(), type: z.literal("paypal"), email: z.string().nullable() }),
  ])
  .meta({ id: "CartPaymentMethod" });

const paymentOptionView = z.object({ type: z.enum(["credit_card", "paypal"]), name: z.string() }).meta({ id: "CartPaymentOption" });
const savedPaymentMethodView = z
  .object({
    id: z.number().int(),
    type: z.literal("saved_payment_method"),
    kind: z.string(),
    card_type: z.string().nullable(),
    last_four: z.string().nullable(),
    exp_month: z.number().int().nullable(),
    exp_year: z.number().int().nullable(),
    paypal_email: z.string().nullable(),
  })
  .meta({ id: "CartSavedPaymentMethod" });

const skippedItemView = z
  .object({
    variant_id: z.number().int(),
    reason: z.enum(["out_of_stock", "variant_unavailable"]),
    message: z.string(),
  })
  .meta({ id: "CartSkippedItem" });

const cartView = z
  .object({
    id: z.number().int(),
    cart_token: z.string(),
    state: z.enum(["start", "payment_method", "payment_authorized", "payment_captured"]),
    processed: z.boolean(),
    valid_for_checkout: z.boolean(),
    type: z.enum(["regular", "enrollment"]),
    buyer_rep_id: z.number().int().nullable(),
    buyer_rep: userSummary.nullable(),
    volume_rep: userSummary.nullable().describe("The rep the attribution names"),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    email_marketing: z.boolean().nullable(),
    sms_marketing: z.boolean().nullable(),
    language_iso: z.string().nullable(),
    currency_symbol: z.string(),
    currency_code: z.string(),
    currency_decimal_places: z.number().int(),
    sub_total: amount,
    discount_total: amount,
    subtotal_after_discounts: amount,
    tax_total: amount,
    shipping_total: amount.nullable(),
    amount_total: amount,
    transaction_fee: amount,
    enrollment_fee: amount,
    shipping_discount: z.number().describe("The shipping part of discount_total"),
    sub_total_in_currency: display,
    discount_total_in_currency: display,
    subtotal_after_discounts_in_currency: display,
    tax_total_in_currency: display,
    shipping_total_in_currency: display,
    amount_total_in_currency: display,
    transaction_fee_in_currency: display,
    enrollment_fee_in_currency: display,
    shipping_total_for_display: z.string().describe('The shipping charged (shipping_total less shipping_discount) as display text; "Free" when a chosen method ships free, by its threshold or a shipping code'),
    cv_total: z.number().int(),
    qv_total: z.number().int(),
    discount_codes: z.array(z.string()).describe("Every applied code"),
    product_discount_codes: z.array(z.string()),
    shipping_discount_codes: z.array(z.string()),
    discount_breakdown: z.record(z.string(), z.object({ scope: z.enum(["order", "product", "shipping"]), amount, amount_in_currency: display })).describe("What each applied code took"),
    external_discount: z.object({ amount, amount_in_currency: display }),
    company: z.object({ id: z.number().int(), name: z.string(), logo_url: z.string().nullable() }),
    company_logo_url: z.string(),
    country: z.object({ id: z.number().int(), iso: z.string(), name: z.string(), country_code: z.string() }),
    messages: z.object({ errors: z.array(z.string()), warnings: z.array(z.string()), info: z.array(z.string()) }),
    metadata: z.record(z.string(), z.unknown()),
    attribution: attributionView.nullable(),
    agreements: z.array(agreementSchema).nullable().describe("The agreements checkout shows for this cart (active, show_at_checkout, for its country and enrollment pack), in its language"),
    payment_account: z.string().nullable(),
    payment_method: paymentMethodView.nullable(),
    payment_method_auto_assignable: z.boolean(),
    available_payment_methods: z.array(z.union([paymentOptionView, savedPaymentMethodView])),
    immutable_items: z.boolean(),
    digital_only: z.boolean(),
    requires_3ds: z.boolean(),
    items: z.array(cartItem),
    skipped_items: z.array(skippedItemView).describe("Variants this request could not add (or update_country removed), each listed once; empty otherwise"),
    available_shipping_methods: z.array(shippingMethodView),
    shipping_method: shippingMethodView.nullable(),
    ship_to: addressView.nullable(),
    bill_to: addressView.nullable(),
    shipping_address: addressView.nullable(),
    billing_address: addressView.nullable(),
    enrollment_pack_id: z.number().int().nullable(),
    enrollment_pack: z.object({ id: z.number().int(), title: z.string(), price: amount, price_in_currency: display }).nullable(),
    recurring: z
      .array(
        z.object({
          subtotal: amount,
          subtotal_in_currency: display,
          interval: z.number().int(),
          interval_unit: z.string(),
          subtotal_for_display: z.string(),
          start_date: z.iso.date(),
        }),
      )
      .nullable()
      .describe("One entry per distinct subscription interval among subscribed items"),
    points_enabled: z.boolean(),
    points_applied: z.number().int(),
    customer_total_points: z.number().int(),
    remaining_customer_points: z.number().int(),
    max_applicable_points: z.number().int(),
    total_creditable_points: z.number().int(),
    points_applied_amount_in_currency: z.number(),
    customer_total_points_in_currency: z.number(),
    remaining_customer_points_amount_in_currency: z.number(),
    remaining_cart_amount_after_points: z.number(),
    remaining_cart_amount_after_points_in_currency: z.string(),
  })
  .meta({ id: "Cart" });

export type CartView = z.infer<typeof cartView>;
/** The cart as stored by every mutation: all of it but what one request reports. */
export const storedCartView = cartView.omit({ skipped_items: true });
export type StoredCartView = z.infer<typeof storedCartView>;
export type SkippedItem = z.infer<typeof skippedItemView>;
export type AddressView = z.infer<typeof addressView>;

const cartMetaSchema = z
  .object({
    request_id: z.uuid(),
    timestamp: z.iso.datetime(),
    checkout_url: z.string().describe("The checkout page for this cart, with a signed jwt naming it"),
    shop_url: z.string(),
  })
  .meta({ id: "CartMeta" });

/** The body of every cart operation. */
export const cartResponse = z.object({ cart: cartView, meta: cartMetaSchema }).meta({ id: "CartResponse" });

/** The 410 of a change to a locked cart (payment authorized or captured): the error body with the cart and the shop's address in meta. */
const cartLockedError = errorBodySchema
  .extend({
    meta: metaSchema.extend({
      cart: cartView.describe("The cart as it stands: `state` and `processed` say how far its payment went"),
      shop_url: z.string(),
    }),
  })
  .meta({ id: "CartLockedError" });

/** The responses of an operation that changes an existing cart: a locked one is a 410 with the cart. */
export const cartChangeResponse = { 200: cartResponse, 410: cartLockedError };
