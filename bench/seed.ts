import pino from "pino";
import { createAgreement, updateAgreement } from "../src/domain/agreements/service.js";
import { agreementCreateBody, agreementUpdateBody } from "../src/domain/agreements/schemas.js";
import { cartReader } from "../src/domain/carts/cart-repository.js";
import { createCart } from "../src/domain/carts/create-cart.js";
import { createCartBody } from "../src/domain/carts/schemas.js";
import { SessionCookieOrigins } from "../src/domain/carts/session-cookie.js";
import { createProduct } from "../src/domain/catalog/products.js";
import { productCreateBody } from "../src/domain/catalog/product-schemas.js";
import { setTaxRate } from "../src/domain/catalog/tax-rates.js";
import { createCompany } from "../src/domain/companies/service.js";
import { ShopDirectory } from "../src/domain/companies/shop-directory.js";
import { createMedia } from "../src/domain/media/service.js";
import { mediaCreateBody } from "../src/domain/media/schemas.js";
import { createSubscriptionOrder } from "../src/domain/subscription-orders/service.js";
import { subscriptionOrderCreateBody } from "../src/domain/subscription-orders/schemas.js";
import { createSavedCard } from "../src/domain/payment-methods/service.js";
import { createUser } from "../src/domain/users/service.js";
import { issueCompanyToken } from "../src/platform/auth/company-tokens.js";
import { userTokenKey } from "../src/platform/auth/user-tokens.js";
import { systemClock } from "../src/platform/clock.js";
import { openDatabase } from "../src/platform/db/database.js";
import { RowQueue } from "../src/platform/db/row-queue.js";

/** What the scenarios address: ids and tokens spread over the data set. */
export interface BenchData {
  companyId: number;
  token: string;
  shop: string;
  variantIds: number[];
  fiveItemCartTokens: string[];
  cartTokens: string[];
  mediaSlugs: string[];
  subscriptionOrderIds: number[];
}

export const SIZES = { products: 500, variantsPerProduct: 4, carts: 5000, media: 200, agreements: 50, subscriptionOrders: 200 };
const SEED_CONCURRENCY = 8;

/** Runs `work` for 0..count-1, a few at a time (the pool has room for them). */
async function times<T>(count: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await work(index);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return results;
}

/** A deterministic spread so two runs seed the same shapes. */
const pick = <T>(items: readonly T[], index: number): T => items[(index * 7919) % items.length] as T;

/**
 * The data set of the benchmark, written through the same services and schemas the API uses:
 * one company; 500 products with 2,000 variants; 5,000 carts of 1-8 items; 200 media; 50
 * agreements with 3 translations; 200 subscription orders.
 */
export async function seedBenchData(databaseUrl: string, jwtSecret: string): Promise<BenchData> {
  const database = await openDatabase({ url: databaseUrl, poolSize: SEED_CONCURRENCY + 2, dataDir: ":memory:", logger: pino({ level: "warn" }) });
  try {
    const db = database.prisma;
    const company = await createCompany(db, { name: "Bench Shop", shop: "bench.example.com" });
    const token = await issueCompanyToken(db, company.id);
    const ctx = { db, sql: database.sql, clock: systemClock, companyId: company.id };
    await setTaxRate(ctx, "US", "8.25");

    const products = await times(SIZES.products, (p) =>
      createProduct(
        ctx,
        productCreateBody.parse({
          product: {
            title: `Product ${p}`,
            description: `A product of the bench catalog, number ${p}.`,
            variants: Array.from({ length: SIZES.variantsPerProduct }, (_, v) => ({
              sku: `BENCH-${p}-${v}`,
              title: `Size ${v}`,
              prices: [{ country_code: "US", price: `${10 + ((p + v) % 40)}.99`, rep_price: `${8 + ((p + v) % 40)}.50` }],
              cv: 10 + v,
              qv: 5 + v,
              inventory_quantity: null,
            })),
          },
        }).product,
      ),
    );
    const variantIds = products.flatMap((product) => product.variants.map((variant) => variant.id));

    const cartContext = {
      db,
      sql: database.sql,
      readCart: cartReader(database.sql, systemClock),
      rowQueue: new RowQueue(),
      clock: systemClock,
      userTokenKey: userTokenKey(jwtSecret),
      shopUrlScheme: "https" as const,
      sessionCookieOrigins: new SessionCookieOrigins(new ShopDirectory(db, systemClock), ["*"]),
    };
    const cartTokens = await times(SIZES.carts, async (c) => {
      const itemCount = c % 4 === 0 ? 5 : 1 + (c % 8);
      const items = Array.from({ length: itemCount }, (_, i) => ({ variant_id: pick(variantIds, c * 8 + i), quantity: 1 + (i % 3) }));
      const cart = await createCart(cartContext, createCartBody.parse({ country_code: "US", svc_shop: company.shop_domain, items }));
      return { token: cart.cartToken, itemCount: new Set(items.map((item) => item.variant_id)).size };
    });

    const media = await times(SIZES.media, (m) =>
      createMedia(
        ctx,
        mediaCreateBody.parse({
          media: {
            title: `Media ${m}`,
            media_type: (["share", "update", "training", "upload"] as const)[m % 4],
            description: `<p>Media number <strong>${m}</strong> of the bench.</p>`,
            video_url: `https://videos.example.com/${m}.mp4`,
            image_url: `https://images.example.com/${m}.jpg`,
            subtitles: { en: "Hello", fr: "Bonjour" },
            translations: { fr: { title: `Média ${m}` } },
          },
        }).media,
      ),
    );

    // A checkout shows a handful (terms, privacy, returns); every cart lists those it shows.
    await times(SIZES.agreements, async (a) => {
      const agreement = await createAgreement(
        ctx,
        agreementCreateBody.parse({ agreement: { title: `Agreement ${a}`, description: `The terms of agreement ${a}.`, show_at_checkout: a < 3 } }).agreement,
      );
      for (const language of ["fr", "de", "es"]) {
        await updateAgreement(
          ctx,
          agreement.id,
          language,
          agreementUpdateBody.parse({ agreement: { title: `Agreement ${a} (${language})`, description: `Terms ${a} in ${language}.` } }).agreement,
        );
      }
    });

    const us = await db.country.findUniqueOrThrow({ where: { iso: "US" } });
    const plan = await db.subscriptionPlan.create({ data: { company_id: company.id, name: "Monthly", price_adjustment_type: "percentage", price_adjustment_amount: "10" } });
    const orderContext = { ...ctx, actor: { type: "bench", id: null } };
    const subscriptionOrderIds = await times(SIZES.subscriptionOrders, async (s) => {
      const customer = await createUser(db, { companyId: company.id, role: "customer", email: `customer-${s}@bench.example.com`, firstName: "Casey", lastName: `Customer ${s}` });
      const card = await createSavedCard(db, { customerId: customer.id, cardType: "visa", lastFour: "4242", expMonth: 12, expYear: 2030 });
      const order = await createSubscriptionOrder(
        orderContext,
        subscriptionOrderCreateBody.parse({
          subscription_order: {
            customer_id: customer.id,
            subscription_plan_id: plan.id,
            payment_method_id: card.id,
            items: [0, 1, 2].map((i) => ({ variant_id: pick(variantIds, s * 3 + i), quantity: 1 + i })),
            ship_to: { country_id: us.id, name: `Casey Customer ${s}`, address1: "1 Main St", city: "Springfield", state: "IL", postal_code: "62701" },
          },
        }).subscription_order,
      );
      return order.id;
    });

    return {
      companyId: company.id,
      token,
      shop: company.shop_domain,
      variantIds,
      fiveItemCartTokens: cartTokens.filter((cart) => cart.itemCount === 5).map((cart) => cart.token),
      cartTokens: cartTokens.map((cart) => cart.token),
      mediaSlugs: media.map((item) => item.slug as string),
      subscriptionOrderIds,
    };
  } finally {
    await database.close();
  }
}
