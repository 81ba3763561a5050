import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { lockCompanyQueue } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { NotFoundError } from "../../platform/errors.js";
import { chunksOfSize, pageWindow, pagination, type StreamedPage } from "../../platform/http/pagination.js";
import { requireLabel } from "../labels/service.js";
import { type CustomPageView, type PageCreateInput, type PageListQuery, type PageUpdateInput } from "./schemas.js";
import { ENGLISH } from "../../platform/http/language.js";
import { pickTranslation } from "./translations.js";

type Tx = Prisma.TransactionClient;
type Db = Tx | ServiceContext["db"];

/**
 * A page with the languages of its translations in creation order: what picks the one a read
 * shows, without their html. A page may hold tens of languages of up to a million characters
 * each and a read shows one: loading them all made a list of 5 pages in 30 languages take 1.2 s
 * and 1.3 GB (an audit).
 */
const withLanguages = { translations: { select: { id: true, lang: true }, orderBy: { id: "asc" } } } as const;
type PageRow = Prisma.CustomPageGetPayload<{ include: typeof withLanguages }>;

const shownColumns = { custom_page_id: true, lang: true, title: true, html_code: true } as const;
type ShownTranslation = Prisma.CustomPageTranslationGetPayload<{ select: typeof shownColumns }>;

function toView(row: PageRow, translation: ShownTranslation | undefined, lang: string): CustomPageView {
  return {
    id: row.id,
    position: row.position,
    lang: translation?.lang ?? lang,
    title: translation?.title ?? "",
    html_code: translation?.html_code ?? "",
    image_url: row.image_url,
    active: row.active,
    use_svc_menu: row.use_svc_menu,
    default: row.default,
    use_for_shop: row.use_for_shop,
    use_search_engine: row.use_search_engine,
    available_countries: row.available_countries,
    label_id: row.label_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The pages as read in `lang`: the title and html_code of the translations shown, and of no other, in one statement. */
async function viewsIn(db: Db, rows: PageRow[], lang: string): Promise<CustomPageView[]> {
  const shownIds = rows.flatMap((row) => pickTranslation(row.translations, lang)?.id ?? []);
  const shown = shownIds.length === 0 ? [] : await db.customPageTranslation.findMany({ where: { id: { in: shownIds } }, select: shownColumns });
  const byPage = new Map(shown.map((translation) => [translation.custom_page_id, translation]));
  return rows.map((row) => toView(row, byPage.get(row.id), lang));
}

async function viewIn(db: Db, row: PageRow, lang: string): Promise<CustomPageView> {
  const [view] = await viewsIn(db, [row], lang);
  return view as CustomPageView;
}

/**
 * Every write to a company's pages takes this lock first: positions stay 1..n without gaps or
 * ties, and at most one page is the default, also when requests race. The writes queue on it, a
 * burst of creates (an import) one at a time, hence the lock-waiting transaction options.
 */
async function inPageLock<T>(ctx: ServiceContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return ctx.db.$transaction(async (tx) => {
    await lockCompanyQueue(tx, "custom_pages", ctx.companyId);
    return work(tx);
  }, LOCK_WAITING_TRANSACTION);
}

async function requirePage(db: Db, companyId: number, id: number): Promise<PageRow> {
  const row = await db.customPage.findFirst({ where: { id, company_id: companyId }, include: withLanguages });
  if (!row) throw new NotFoundError("Custom page not found");
  return row;
}

async function clearDefault(tx: Tx, companyId: number): Promise<void> {
  await tx.customPage.updateMany({ where: { company_id: companyId, default: true }, data: { default: false } });
}

function uniqueCountries(codes: string[]): string[] {
  return [...new Set(codes)];
}

/**
 * The picked translations' ids in chunks of about LIST_CHUNK_BYTES of title and html, sized from
 * the values' headers (octet_length reads no TOASTed html): one statement, no html read.
 */
async function listChunks(ctx: ServiceContext, ids: number[]): Promise<number[][]> {
  const sizes = await ctx.db.$queryRaw<Array<{ id: number; bytes: bigint }>>`
    SELECT id, octet_length(title) + octet_length(html_code) AS bytes FROM custom_page_translations
    WHERE company_id = ${ctx.companyId} AND id = ANY(${ids}::int[])`;
  return chunksOfSize(ids, new Map(sizes.map(({ id, bytes }) => [id, Number(bytes)])));
}

/** A chunk's translations by id, in one statement; one gone since (its page deleted) is absent. */
async function readChunk(ctx: ServiceContext, ids: number[]): Promise<Map<number, ShownTranslation>> {
  const rows = await ctx.db.customPageTranslation.findMany({ where: { id: { in: ids }, company_id: ctx.companyId }, select: { id: true, ...shownColumns } });
  return new Map(rows.map((row) => [row.id, row]));
}

/** The pages as read in `lang`, their titles and html read a chunk at a time, the first already read; a page deleted meanwhile is left out. */
async function* viewsInChunks(ctx: ServiceContext, rows: PageRow[], lang: string, chunks: number[][], first: Map<number, ShownTranslation>): AsyncGenerator<CustomPageView> {
  const chunkOf = new Map(chunks.flatMap((ids, index) => ids.map((id) => [id, index] as const)));
  let loaded = first;
  let loadedIndex = 0;
  for (const row of rows) {
    const picked = pickTranslation(row.translations, lang);
    if (!picked) {
      yield toView(row, undefined, lang);
      continue;
    }
    const index = chunkOf.get(picked.id) ?? loadedIndex;
    if (index !== loadedIndex) {
      loaded = await readChunk(ctx, chunks[index] ?? []);
      loadedIndex = index;
    }
    const translation = loaded.get(picked.id);
    if (translation) yield toView(row, translation, lang);
  }
}

/**
 * A list page whose titles and html are read as the answer is written (sendStreamedList); the
 * first chunk is read before it answers. A list page may hold 100 pages of up to a million
 * characters each: answered whole, a list of 16 such pages was 51 MB of JSON and 8 of them at
 * once took the server to 1.1 GB (an audit).
 */
export async function listPages(ctx: ServiceContext, query: PageListQuery): Promise<StreamedPage<CustomPageView>> {
  const where = { company_id: ctx.companyId };
  const [rows, total] = await Promise.all([
    ctx.db.customPage.findMany({ where, include: withLanguages, orderBy: [{ position: "asc" }, { id: "asc" }], ...pageWindow(query) }),
    ctx.db.customPage.count({ where }),
  ]);
  const ids = rows.flatMap((row) => pickTranslation(row.translations, query.lang)?.id ?? []);
  const chunks = ids.length === 0 ? [] : await listChunks(ctx, ids);
  const first = chunks[0] === undefined ? new Map<number, ShownTranslation>() : await readChunk(ctx, chunks[0]);
  return { rows: viewsInChunks(ctx, rows, query.lang, chunks, first), pagination: pagination(query, total) };
}

export async function getPage(ctx: ServiceContext, id: number, lang = ENGLISH): Promise<CustomPageView> {
  return viewIn(ctx.db, await requirePage(ctx.db, ctx.companyId, id), lang);
}

/** A new page goes last. */
export async function createPage(ctx: ServiceContext, lang: string, input: PageCreateInput): Promise<CustomPageView> {
  return inPageLock(ctx, async (tx) => {
    if (input.label_id != null) await requireLabel(tx, ctx.companyId, input.label_id, "custom_page.label_id");
    if (input.default) await clearDefault(tx, ctx.companyId);
    const last = await tx.customPage.aggregate({ where: { company_id: ctx.companyId }, _max: { position: true } });
    const row = await tx.customPage.create({
      data: {
        company_id: ctx.companyId,
        label_id: input.label_id ?? null,
        position: (last._max.position ?? 0) + 1,
        image_url: input.image_url,
        active: input.active,
        use_svc_menu: input.use_svc_menu,
        default: input.default,
        use_for_shop: input.use_for_shop,
        use_search_engine: input.use_search_engine,
        available_countries: uniqueCountries(input.available_countries),
        translations: { create: { company_id: ctx.companyId, lang, title: input.title, html_code: input.html_code } },
      },
      include: withLanguages,
    });
    return viewIn(tx, row, lang);
  });
}

/** Writes the untranslated members and the `lang` translation of title and html_code. */
export async function updatePage(ctx: ServiceContext, id: number, lang: string, input: PageUpdateInput): Promise<CustomPageView> {
  return inPageLock(ctx, async (tx) => {
    const current = await requirePage(tx, ctx.companyId, id);
    if (input.label_id !== null) await requireLabel(tx, ctx.companyId, input.label_id, "custom_page.label_id");
    if (input.default && !current.default) await clearDefault(tx, ctx.companyId);
    const row = await tx.customPage.update({
      where: { id: current.id },
      data: {
        label_id: input.label_id,
        active: input.active,
        use_svc_menu: input.use_svc_menu,
        default: input.default,
        use_for_shop: input.use_for_shop,
        use_search_engine: input.use_search_engine,
        available_countries: uniqueCountries(input.available_countries),
        translations: {
          upsert: {
            where: { custom_page_id_lang: { custom_page_id: current.id, lang } },
            create: { company_id: ctx.companyId, lang, title: input.title, html_code: input.html_code },
            update: { title: input.title, html_code: input.html_code },
          },
        },
      },
      include: withLanguages,
    });
    return viewIn(tx, row, lang);
  });
}

/** Removes the page; the pages below it move up one place. */
export async function deletePage(ctx: ServiceContext, id: number, lang = ENGLISH): Promise<CustomPageView> {
  return inPageLock(ctx, async (tx) => {
    const current = await requirePage(tx, ctx.companyId, id);
    const view = await viewIn(tx, current, lang);
    await tx.customPage.delete({ where: { id: current.id } });
    await tx.customPage.updateMany({ where: { company_id: ctx.companyId, position: { gt: current.position } }, data: { position: { decrement: 1 } } });
    return view;
  });
}

/** Moves the page to position 1; the pages that were above it move down one place. */
export async function sendToTop(ctx: ServiceContext, id: number, lang = ENGLISH): Promise<CustomPageView> {
  return inPageLock(ctx, async (tx) => {
    const current = await requirePage(tx, ctx.companyId, id);
    if (current.position === 1) return viewIn(tx, current, lang);
    await tx.customPage.updateMany({ where: { company_id: ctx.companyId, position: { lt: current.position } }, data: { position: { increment: 1 } } });
    return viewIn(tx, await tx.customPage.update({ where: { id: current.id }, data: { position: 1 }, include: withLanguages }), lang);
  });
}

/**
 * A copy with every translation, right after the original, never the default. The translations
 * are copied inside the database, in their order (the copy falls back to the same first
 * language): up to a million characters in each of tens of languages never travel to the server
 * and back.
 */
export async function duplicatePage(ctx: ServiceContext, id: number, lang = ENGLISH): Promise<CustomPageView> {
  return inPageLock(ctx, async (tx) => {
    const original = await requirePage(tx, ctx.companyId, id);
    await tx.customPage.updateMany({ where: { company_id: ctx.companyId, position: { gt: original.position } }, data: { position: { increment: 1 } } });
    const copy = await tx.customPage.create({
      data: {
        company_id: ctx.companyId,
        label_id: original.label_id,
        position: original.position + 1,
        image_url: original.image_url,
        active: original.active,
        use_svc_menu: original.use_svc_menu,
        default: false,
        use_for_shop: original.use_for_shop,
        use_search_engine: original.use_search_engine,
        available_countries: original.available_countries,
      },
    });
    const now = ctx.clock.now();
    await tx.$executeRaw`
      INSERT INTO custom_page_translations (company_id, custom_page_id, lang, title, html_code, created_at, updated_at)
      SELECT company_id, ${copy.id}, lang, title, html_code, ${now}, ${now}
      FROM custom_page_translations WHERE custom_page_id = ${original.id}
      ORDER BY id`;
    return viewIn(tx, await requirePage(tx, ctx.companyId, copy.id), lang);
  });
}
