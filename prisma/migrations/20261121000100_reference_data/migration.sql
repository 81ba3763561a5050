-- Reference data every company shares: currencies, countries and languages.
INSERT INTO "currencies" ("code", "name", "symbol", "decimal_places") VALUES
  ('USD', 'US Dollar', '$', 2),
  ('CAD', 'Canadian Dollar', 'CA$', 2),
  ('GBP', 'Pound Sterling', '£', 2),
  ('EUR', 'Euro', '€', 2),
  ('JPY', 'Yen', '¥', 0),
  ('KWD', 'Kuwaiti Dinar', 'KWD', 3),
  ('AUD', 'Australian Dollar', 'A$', 2),
  ('NZD', 'New Zealand Dollar', 'NZ$', 2),
  ('MXN', 'Mexican Peso', 'MX$', 2);

INSERT INTO "countries" ("iso", "name", "currency_code") VALUES
  ('US', 'United States', 'USD'),
  ('CA', 'Canada', 'CAD'),
  ('GB', 'United Kingdom', 'GBP'),
  ('DE', 'Germany', 'EUR'),
  ('FR', 'France', 'EUR'),
  ('ES', 'Spain', 'EUR'),
  ('IT', 'Italy', 'EUR'),
  ('NL', 'Netherlands', 'EUR'),
  ('IE', 'Ireland', 'EUR'),
  ('JP', 'Japan', 'JPY'),
  ('KW', 'Kuwait', 'KWD'),
  ('AU', 'Australia', 'AUD'),
  ('NZ', 'New Zealand', 'NZD'),
  ('MX', 'Mexico', 'MXN');

INSERT INTO "languages" ("iso", "name") VALUES
  ('en', 'English'),
  ('fr', 'French'),
  ('de', 'German'),
  ('es', 'Spanish'),
  ('it', 'Italian'),
  ('nl', 'Dutch'),
  ('pt', 'Portuguese'),
  ('ja', 'Japanese'),
  ('ar', 'Arabic'),
  ('zh', 'Chinese');
