import { describe, expect, it } from "vitest";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Translations stored before 20261124111000 could be keyed by a withdrawn ISO 639-1 code (iw),
// which reads now take as its current one (he): the migration moves them there.
const MIGRATION = "20261124111000_current_language_codes";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("moves custom page and media translations from withdrawn codes to current ones, dropping the withdrawn one where a current one already exists", async () => {
    const db = testDb.database.prisma;
    const company = await createCompanyWithToken(db, "Legacy");
    const page = (position: number, translations: Array<[string, string]>) =>
      db.customPage.create({
        data: {
          company_id: company.id,
          position,
          active: true,
          use_svc_menu: false,
          default: false,
          use_for_shop: true,
          use_search_engine: true,
          available_countries: ["il"],
          translations: { create: translations.map(([lang, title]) => ({ company_id: company.id, lang, title, html_code: "" })) },
        },
      });
    const hebrewOnly = await page(1, [["en", "Hello"], ["iw", "Shalom"], ["in", "Halo"]]);
    const both = await page(2, [["iw", "Old"], ["he", "New"]]);
    const media = await db.media.create({
      data: {
        company_id: company.id,
        title: "Hello",
        media_type: "share",
        slug: "hello",
        translations: {
          create: [
            { language_iso: "ji", title: "Sholem" },
            { language_iso: "fr", title: "Bonjour" },
            { language_iso: "mo", title: "Salut (old)" },
            { language_iso: "ro", title: "Salut" },
          ],
        },
      },
    });

    await rerunMigration(testDb, MIGRATION);

    const languages = async (customPageId: number) =>
      (await db.customPageTranslation.findMany({ where: { custom_page_id: customPageId }, orderBy: { lang: "asc" } })).map(({ lang, title }) => [lang, title]);
    expect(await languages(hebrewOnly.id)).toEqual([["en", "Hello"], ["he", "Shalom"], ["id", "Halo"]]);
    expect(await languages(both.id)).toEqual([["he", "New"]]);
    const mediaLanguages = await db.mediaTranslation.findMany({ where: { media_id: media.id }, orderBy: { language_iso: "asc" } });
    expect(mediaLanguages.map(({ language_iso, title }) => [language_iso, title])).toEqual([["fr", "Bonjour"], ["ro", "Salut"], ["yi", "Sholem"]]);
  });
});
