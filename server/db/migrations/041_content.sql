-- The staff console's content (issue 24 item 6): gift names per language, sensitive-word lists
-- edited per language, and who may broadcast from OBS.

-- A gift's name in each interface language (locale → name); `name` stays the name shown where
-- a language has none. The seeded gifts' names move here from the message catalogues, so staff
-- edit every language of a gift in one place.
ALTER TABLE gifts ADD COLUMN names jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(names) = 'object');
ALTER TABLE gifts ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE gifts SET names = '{"en":"Rose","ar":"وردة","de":"Rose","es":"Rosa","hi":"गुलाब","id":"Mawar","ja":"バラ","vi":"Hoa hồng","zh":"玫瑰","zh-TW":"玫瑰"}' WHERE gift_id = 1;
UPDATE gifts SET names = '{"en":"Heart","ar":"قلب","de":"Herz","es":"Corazón","hi":"दिल","id":"Hati","ja":"ハート","vi":"Trái tim","zh":"爱心","zh-TW":"愛心"}' WHERE gift_id = 2;
UPDATE gifts SET names = '{"en":"Star","ar":"نجمة","de":"Stern","es":"Estrella","hi":"सितारा","id":"Bintang","ja":"スター","vi":"Ngôi sao","zh":"星星","zh-TW":"星星"}' WHERE gift_id = 3;
UPDATE gifts SET names = '{"en":"Crown","ar":"تاج","de":"Krone","es":"Corona","hi":"ताज","id":"Mahkota","ja":"王冠","vi":"Vương miện","zh":"皇冠","zh-TW":"皇冠"}' WHERE gift_id = 4;
UPDATE gifts SET names = '{"en":"Rocket","ar":"صاروخ","de":"Rakete","es":"Cohete","hi":"रॉकेट","id":"Roket","ja":"ロケット","vi":"Tên lửa","zh":"火箭","zh-TW":"火箭"}' WHERE gift_id = 5;
UPDATE gifts SET names = '{"en":"Fireworks","ar":"ألعاب نارية","de":"Feuerwerk","es":"Fuegos artificiales","hi":"आतिशबाज़ी","id":"Kembang Api","ja":"花火","vi":"Pháo hoa","zh":"烟花","zh-TW":"煙火"}' WHERE gift_id = 90;

-- A language's sensitive-word list once staff have edited it: from then on these rows are the
-- list (the shipped file content/moderation/sensitive-words/{locale}.txt is the list until then).
CREATE TABLE sensitive_word_lists (
  locale      text PRIMARY KEY,
  updated_by  bigint REFERENCES users (uid) ON DELETE SET NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE sensitive_words (
  locale  text NOT NULL REFERENCES sensitive_word_lists (locale) ON DELETE CASCADE,
  word    text NOT NULL CHECK (length(word) BETWEEN 1 AND 100),
  PRIMARY KEY (locale, word)
);

-- Who may broadcast from OBS (spec §7 obswhitelist), once staff have set it: 'all', or only the
-- people of obs_whitelist. Until then the OBS_WHITELIST setting decides.
CREATE TABLE obs_policy (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  mode        text NOT NULL CHECK (mode IN ('all', 'list')),
  updated_by  bigint REFERENCES users (uid) ON DELETE SET NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE obs_whitelist (
  uid       bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  added_by  bigint REFERENCES users (uid) ON DELETE SET NULL,
  added_at  timestamptz NOT NULL DEFAULT now()
);
