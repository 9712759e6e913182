-- Sticker names per language (issue 24 item 6), edited by staff with the rest of the sticker set;
-- the seeded stickers' names move here from the message catalogues. A sticker added in the
-- console has no picture until one is uploaded, and is not offered until then.
ALTER TABLE gift_stickers
  ADD COLUMN names jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(names) = 'object'),
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ALTER COLUMN image_url DROP NOT NULL;
UPDATE gift_stickers SET names = '{"en":"Hello","ar":"مرحبًا","de":"Hallo","es":"Hola","hi":"नमस्ते","id":"Halo","ja":"こんにちは","vi":"Xin chào","zh":"你好","zh-TW":"哈囉"}' WHERE sticker_id = 1;
UPDATE gift_stickers SET names = '{"en":"Love","ar":"حب","de":"Liebe","es":"Amor","hi":"प्यार","id":"Cinta","ja":"ラブ","vi":"Yêu","zh":"爱你","zh-TW":"愛你"}' WHERE sticker_id = 2;
UPDATE gift_stickers SET names = '{"en":"Haha","ar":"هههه","de":"Haha","es":"Jaja","hi":"हाहा","id":"Haha","ja":"ウケる","vi":"Haha","zh":"哈哈","zh-TW":"哈哈"}' WHERE sticker_id = 3;
UPDATE gift_stickers SET names = '{"en":"Wow","ar":"واو","de":"Wow","es":"Guau","hi":"वाह","id":"Wow","ja":"すごい","vi":"Wow","zh":"哇哦","zh-TW":"哇"}' WHERE sticker_id = 4;
UPDATE gift_stickers SET names = '{"en":"Clap","ar":"تصفيق","de":"Applaus","es":"Aplausos","hi":"ताली","id":"Tepuk tangan","ja":"拍手","vi":"Vỗ tay","zh":"鼓掌","zh-TW":"拍手"}' WHERE sticker_id = 5;
UPDATE gift_stickers SET names = '{"en":"Fire","ar":"نار","de":"Feuer","es":"Fuego","hi":"आग","id":"Api","ja":"アツい","vi":"Cháy","zh":"燃","zh-TW":"超燃"}' WHERE sticker_id = 6;
UPDATE gift_stickers SET names = '{"en":"Cool","ar":"رائع","de":"Cool","es":"Genial","hi":"कूल","id":"Keren","ja":"かっこいい","vi":"Ngầu","zh":"酷","zh-TW":"酷"}' WHERE sticker_id = 7;
UPDATE gift_stickers SET names = '{"en":"GG","ar":"GG","de":"GG","es":"GG","hi":"GG","id":"GG","ja":"GG","vi":"GG","zh":"GG","zh-TW":"GG"}' WHERE sticker_id = 8;
