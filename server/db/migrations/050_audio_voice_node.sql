-- The media node a co-host's voice is published to (its lease-holder-style name), null while they
-- are silent: a listener on another node pulls the voice from there, and a host's mute or removal
-- made on any node cuts it there (server/modules/audio).
ALTER TABLE audio_seats ADD COLUMN node text;
