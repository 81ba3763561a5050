import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext, SqlServiceContext } from "../../platform/context.js";
import type { Db } from "../../platform/db/database.js";
import type { SqlPool } from "../../platform/db/sql.js";
import { FieldErrorCollector, type FieldErrors, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, pagination } from "../../platform/http/pagination.js";
import { ENGLISH } from "../../platform/http/language.js";
import { copyTitle, writtenLanguage } from "./content.js";
import { findAgreementPage } from "./list.js";
import type {
  AgreementCreateInput,
  AgreementListQuery,
  AgreementSort,
  AgreementUpdateInput,
  AgreementView,
  AttachmentUpdateInput,
} from "./schemas.js";
import { findActiveAgreementView, findAgreementView, findAgreementViews, toView } from "./view.js";

type Client = Db | Prisma.TransactionClient;

function formatIds(ids: number[]): string {
  return ids.join(", ");
}

/** References the body names must be the company's own: 422 naming what is not. */
async function referenceErrors(db: Client, companyId: number, input: Pick<AgreementUpdateInput, "enrollment_pack_id" | "company_country_ids">): Promise<FieldErrors> {
  const errors = new FieldErrorCollector();
  // Sequential: inside a transaction there is one connection to run them on.
  const pack = input.enrollment_pack_id == null ? null : await db.enrollmentPack.findFirst({ where: { id: input.enrollment_pack_id, company_id: companyId }, select: { id: true } });
  const countries = input.company_country_ids?.length
    ? await db.companyCountry.findMany({ where: { id: { in: input.company_country_ids }, company_id: companyId }, select: { id: true } })
    : [];
  if (input.enrollment_pack_id != null && !pack) errors.add("agreement.enrollment_pack_id", "does not name an enrollment pack of this company");
  const known = new Set(countries.map((country) => country.id));
  const unknown = [...new Set(input.company_country_ids ?? [])].filter((id) => !known.has(id));
  if (unknown.length > 0) errors.add("agreement.company_country_ids", `unknown company country ids: ${formatIds(unknown)}`);
  return errors.fieldErrors;
}

// An agreement that must be accepted at checkout but is never shown there could not be accepted.
function checkoutErrors(flags: { show_at_checkout: boolean; required_on_checkout: boolean }): FieldErrors {
  return flags.required_on_checkout && !flags.show_at_checkout ? { "agreement.required_on_checkout": ["requires show_at_checkout"] } : {};
}

function attachmentData(attachment: Omit<AttachmentUpdateInput, "id" | "_destroy">) {
  return {
    ...(attachment.url !== undefined ? { url: attachment.url } : {}),
    ...(attachment.filename !== undefined ? { filename: attachment.filename } : {}),
    ...(attachment.kind !== undefined ? { kind: attachment.kind } : {}),
    ...(attachment.content_type !== undefined ? { content_type: attachment.content_type } : {}),
    ...(attachment.content_size !== undefined ? { content_size: attachment.content_size === null ? null : BigInt(attachment.content_size) } : {}),
    ...(attachment.metadata !== undefined ? { metadata: attachment.metadata as Prisma.InputJsonObject } : {}),
  };
}

function flagData(input: AgreementUpdateInput) {
  return {
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.show_at_checkout !== undefined ? { show_at_checkout: input.show_at_checkout } : {}),
    ...(input.default_checked !== undefined ? { default_checked: input.default_checked } : {}),
    ...(input.required_on_checkout !== undefined ? { required_on_checkout: input.required_on_checkout } : {}),
    ...(input.required !== undefined ? { required: input.required } : {}),
    ...(input.enrollment_pack_id !== undefined ? { enrollment_pack_id: input.enrollment_pack_id } : {}),
  };
}

export async function listAgreements(ctx: SqlServiceContext, query: AgreementListQuery): Promise<Page<AgreementView>> {
  const page: PageRequest = { page: query.page, per_page: query.per_page };
  const { rows, total } = await findAgreementPage(
    ctx.sql,
    {
      companyId: ctx.companyId,
      languageIso: query.language_iso ?? ENGLISH,
      searchQuery: query.search_query || undefined,
      status: query.status,
      sortedBy: query.sorted_by as AgreementSort,
    },
    page,
  );
  return { rows: rows.map(toView), pagination: pagination(page, total) };
}

/** Create writes English content whatever language the request names (the specification's rule). */
export async function createAgreement(ctx: SqlServiceContext, input: AgreementCreateInput): Promise<AgreementView> {
  const errors = new FieldErrorCollector();
  errors.merge(await referenceErrors(ctx.db, ctx.companyId, input));
  errors.merge(checkoutErrors({ show_at_checkout: input.show_at_checkout ?? false, required_on_checkout: input.required_on_checkout ?? false }));
  errors.throwIfAny();
  const { id } = await ctx.db.agreement.create({
    data: {
      company_id: ctx.companyId,
      title: input.title,
      description: input.description,
      ...flagData(input),
      attachments: { create: (input.attachments_attributes ?? []).map((attachment) => ({ ...attachmentData(attachment), url: attachment.url })) },
      countries: { create: [...new Set(input.company_country_ids ?? [])].map((countryId) => ({ company_country_id: countryId })) },
    },
    select: { id: true },
  });
  return findAgreementView(ctx, id, ENGLISH);
}

export async function getAgreement(ctx: SqlServiceContext, id: number, languageIso: string | undefined): Promise<AgreementView> {
  return findAgreementView(ctx, id, languageIso ?? ENGLISH);
}

/** Storefront checkout reads agreements without a credential: only active ones exist for it. */
export async function getActiveAgreement(sql: SqlPool, id: number, languageIso: string | undefined): Promise<AgreementView> {
  return findActiveAgreementView(sql, id, languageIso ?? ENGLISH);
}

// One change per attachment: a second entry for it (remove, then change) has no order to apply in.
function attachmentErrors(input: AttachmentUpdateInput[], existing: Set<number>): FieldErrors {
  const errors = new FieldErrorCollector();
  const named = new Set<number>();
  input.forEach((attachment, index) => {
    const path = `agreement.attachments_attributes.${index}`;
    if (attachment.id !== undefined && !existing.has(attachment.id)) errors.add(`${path}.id`, "does not name an attachment of this agreement");
    else if (attachment.id !== undefined && named.has(attachment.id)) errors.add(`${path}.id`, "names an attachment an earlier entry already names");
    if (attachment.id !== undefined) named.add(attachment.id);
    if (attachment.id === undefined && attachment._destroy) errors.add(`${path}.id`, "is required to remove an attachment");
    if (attachment.id === undefined && !attachment._destroy && attachment.url === undefined) errors.add(`${path}.url`, "is required");
  });
  return errors.fieldErrors;
}

async function writeAttachments(tx: Prisma.TransactionClient, agreementId: number, input: AttachmentUpdateInput[]): Promise<void> {
  for (const { id, _destroy, ...fields } of input) {
    if (id !== undefined && _destroy) await tx.agreementAttachment.delete({ where: { id } });
    else if (id !== undefined) await tx.agreementAttachment.update({ where: { id }, data: attachmentData(fields) });
    else await tx.agreementAttachment.create({ data: { agreement_id: agreementId, ...attachmentData(fields), url: fields.url as string } });
  }
}

function contentData(input: AgreementUpdateInput) {
  return {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
  };
}

// A read shows a translation whole or not at all, so a new one needs title and description.
function translationErrors(languageIso: string, existing: boolean, input: AgreementUpdateInput): FieldErrors {
  if (languageIso === ENGLISH || existing || (input.title === undefined && input.description === undefined)) return {};
  const errors = new FieldErrorCollector();
  if (input.title === undefined) errors.add("agreement.title", `is required for a new ${languageIso} translation`);
  if (input.description === undefined) errors.add("agreement.description", `is required for a new ${languageIso} translation`);
  return errors.fieldErrors;
}

async function writeTranslation(tx: Prisma.TransactionClient, agreementId: number, languageIso: string, existingId: number | undefined, input: AgreementUpdateInput): Promise<void> {
  if (input.title === undefined && input.description === undefined) return;
  if (existingId !== undefined) {
    await tx.agreementTranslation.update({ where: { id: existingId }, data: contentData(input) });
    return;
  }
  await tx.agreementTranslation.create({ data: { agreement_id: agreementId, language_iso: languageIso, title: input.title as string, description: input.description as string } });
}

// Updates of one agreement queue behind its row lock: they need more room than Prisma's 2 s and 5 s defaults.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/**
 * Locks the company's agreement for the rest of the transaction, or 404. Concurrent updates of
 * one agreement take turns here, each reading what the one before it left: two replacements of
 * its countries or two first writes of a translation cannot interleave (a union of both sets, a
 * duplicate key, a deadlock), and the last one wins.
 */
async function lockAgreement(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<void> {
  const rows = await tx.$queryRaw<unknown[]>`SELECT id FROM agreements WHERE id = ${id} AND company_id = ${companyId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Agreement not found");
}

/**
 * Content goes to the language the request names: English onto the agreement itself, another
 * language into its translation, leaving English as it was. Everything else is the same in
 * every language.
 */
export async function updateAgreement(ctx: SqlServiceContext, id: number, languageIso: string | undefined, input: AgreementUpdateInput): Promise<AgreementView> {
  const language = writtenLanguage(languageIso);
  await ctx.db.$transaction(async (tx) => {
    await lockAgreement(tx, ctx.companyId, id);
    const current = await tx.agreement.findUniqueOrThrow({
      where: { id },
      include: { attachments: { select: { id: true } }, translations: { where: { language_iso: language }, select: { id: true } } },
    });
    const translation = current.translations[0];
    const languageKnown = language === ENGLISH || (await tx.language.findUnique({ where: { iso: language }, select: { iso: true } })) !== null;
    const errors = new FieldErrorCollector();
    if (!languageKnown) errors.add("language_iso", "is not a supported language");
    errors.merge(translationErrors(language, translation !== undefined, input));
    errors.merge(await referenceErrors(tx, ctx.companyId, input));
    errors.merge(checkoutErrors({ show_at_checkout: input.show_at_checkout ?? current.show_at_checkout, required_on_checkout: input.required_on_checkout ?? current.required_on_checkout }));
    errors.merge(attachmentErrors(input.attachments_attributes ?? [], new Set(current.attachments.map((attachment) => attachment.id))));
    errors.throwIfAny();
    if (language !== ENGLISH) await writeTranslation(tx, id, language, translation?.id, input);
    await writeAttachments(tx, id, input.attachments_attributes ?? []);
    if (input.company_country_ids) {
      await tx.agreementCountry.deleteMany({ where: { agreement_id: id } });
      await tx.agreementCountry.createMany({ data: [...new Set(input.company_country_ids)].map((countryId) => ({ agreement_id: id, company_country_id: countryId })) });
    }
    // Always written, so that updated_at moves whenever anything about the agreement changed.
    await tx.agreement.update({
      where: { id },
      data: { ...(language === ENGLISH ? contentData(input) : {}), ...flagData(input), updated_at: ctx.clock.now() },
    });
  }, TRANSACTION_OPTIONS);
  return findAgreementView(ctx, id, language);
}

export async function deleteAgreement(ctx: ServiceContext, id: number): Promise<{ id: number }> {
  const { count } = await ctx.db.agreement.deleteMany({ where: { id, company_id: ctx.companyId } });
  if (count === 0) throw new NotFoundError("Agreement not found");
  return { id };
}

/** Every id must name one of the company's agreements, or nothing happens: 422 naming the others. */
async function requireOwnAgreements(db: Client, companyId: number, ids: number[]): Promise<void> {
  const found = await db.agreement.findMany({ where: { id: { in: ids }, company_id: companyId }, select: { id: true } });
  const known = new Set(found.map((row) => row.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw ValidationError.field("agreement_ids", `unknown agreement ids: ${formatIds(unknown)}`);
}

export async function bulkDeleteAgreements(ctx: ServiceContext, agreementIds: number[]): Promise<{ agreement_ids: number[] }> {
  const ids = [...new Set(agreementIds)];
  await ctx.db.$transaction(async (tx) => {
    await requireOwnAgreements(tx, ctx.companyId, ids);
    const { count } = await tx.agreement.deleteMany({ where: { id: { in: ids }, company_id: ctx.companyId } });
    // A concurrent delete took some of them: report it as unknown ids and roll back.
    if (count !== ids.length) await requireOwnAgreements(tx, ctx.companyId, ids);
  });
  return { agreement_ids: ids };
}

/** A copy with its translations, attachments and countries, titles marked as a copy, inactive: its id. */
async function cloneRow(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<number> {
  const original = await tx.agreement.findFirst({ where: { id, company_id: companyId }, include: { translations: true, attachments: true, countries: true } });
  if (!original) throw new NotFoundError("Agreement not found");
  const copy = await tx.agreement.create({
    data: {
      company_id: companyId,
      title: copyTitle(original.title),
      description: original.description,
      active: false,
      show_at_checkout: original.show_at_checkout,
      default_checked: original.default_checked,
      required_on_checkout: original.required_on_checkout,
      required: original.required,
      enrollment_pack_id: original.enrollment_pack_id,
      translations: {
        create: original.translations.map((translation) => ({ language_iso: translation.language_iso, title: copyTitle(translation.title), description: translation.description })),
      },
      attachments: {
        create: original.attachments.map((attachment) => ({
          url: attachment.url,
          filename: attachment.filename,
          kind: attachment.kind,
          content_type: attachment.content_type,
          content_size: attachment.content_size,
          metadata: attachment.metadata as Prisma.InputJsonValue,
        })),
      },
      countries: { create: original.countries.map((country) => ({ company_country_id: country.company_country_id })) },
    },
    select: { id: true },
  });
  return copy.id;
}

export async function cloneAgreement(ctx: SqlServiceContext, id: number): Promise<AgreementView> {
  const copyId = await ctx.db.$transaction((tx) => cloneRow(tx, ctx.companyId, id));
  return findAgreementView(ctx, copyId, ENGLISH);
}

export async function bulkCloneAgreements(ctx: SqlServiceContext, agreementIds: number[]): Promise<AgreementView[]> {
  const ids = [...new Set(agreementIds)];
  const copyIds = await ctx.db.$transaction(async (tx) => {
    await requireOwnAgreements(tx, ctx.companyId, ids);
    const copies: number[] = [];
    for (const id of ids) copies.push(await cloneRow(tx, ctx.companyId, id));
    return copies;
  });
  return findAgreementViews(ctx, copyIds, ENGLISH);
}
