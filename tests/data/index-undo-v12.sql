-- Takes a schema 12 sqlite index back to schema 11 (no cause class), for
-- the tests that make an older index out of a fresh one by hand (sqlite3
-- DB ".read FILE"); index-undo-v10.sql goes on down from there (schema 11
-- has no SQL of its own to undo: SHA-256 hashes are read as they are).
ALTER TABLE reports DROP COLUMN class;
PRAGMA user_version = 11;
