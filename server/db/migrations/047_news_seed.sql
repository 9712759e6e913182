-- Which file of content/news an article was seeded from: the seed finds its article by this, not
-- by its address, so an article staff moved to a new address is not seeded again at the old one.
-- Existing seeded articles are claimed by the next start's seed (their address is still the file's).
ALTER TABLE news ADD COLUMN seed text;
CREATE UNIQUE INDEX news_seed_idx ON news (seed) WHERE seed IS NOT NULL;
