-- Takes a schema 11 sqlite index back to schema 10 (no cause class), for
-- the tests that make an older index out of a fresh one by hand (sqlite3
-- DB ".read FILE"); index-undo-v10.sql goes on down from there.
ALTER TABLE reports DROP COLUMN class;
PRAGMA user_version = 10;
