-- Where a session was signed in from, for the staff's people page (and the person's own security):
-- the client's address and its browser's User-Agent as sent (at most 512 characters kept).
ALTER TABLE sessions ADD COLUMN ip text;
ALTER TABLE sessions ADD COLUMN user_agent text CHECK (char_length(user_agent) <= 512);
