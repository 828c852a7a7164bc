-- Takes a schema 10 sqlite index back to schema 9's images table (a row
-- per report and image), for the tests that make an older index out of a
-- fresh one by hand (sqlite3 DB ".read FILE"); they go on down from there.
CREATE TABLE images(report_id INTEGER NOT NULL REFERENCES reports(id),
	rank INTEGER NOT NULL, uuid_hex TEXT NOT NULL, name TEXT NOT NULL, last TEXT NOT NULL DEFAULT '',
	PRIMARY KEY(report_id, rank, uuid_hex, name)) WITHOUT ROWID;
INSERT INTO images SELECT r.id, m.rank, m.uuid_hex, m.name, m.last
	FROM reports r JOIN image_members m ON m.set_id = r.image_set;
CREATE INDEX images_uuid ON images(uuid_hex) WHERE uuid_hex <> '';
CREATE INDEX images_name ON images(name COLLATE NOCASE) WHERE name <> '';
CREATE INDEX images_last ON images(last COLLATE NOCASE) WHERE name <> '';
DROP INDEX reports_image_set;
ALTER TABLE reports DROP COLUMN image_set;
DROP TABLE image_members;
DROP TABLE image_sets;
PRAGMA user_version = 9;
