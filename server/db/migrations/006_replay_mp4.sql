-- H.264 recordings are rewrapped as MP4 once a broadcast ends (Safari plays no WebM); VP8 ones
-- stay WebM.
ALTER TABLE replay_parts DROP CONSTRAINT replay_parts_file_check;
ALTER TABLE replay_parts ADD CONSTRAINT replay_parts_file_check CHECK (file ~ '^[A-Za-z0-9-]+\.(webm|mp4)$');
