-- roles.sql: the two roles kpbrowse uses on a PostgreSQL server, with least
-- privilege.  A superuser (or the schema's owner) runs it on the index's
-- database after `kpbrowse db init`, and again after a db init that
-- migrated the schema (it is idempotent):
--     psql -d DBNAME -f packaging/postgresql/roles.sql
-- Both roles are created without passwords: give people their own login
-- (GRANT kpbrowse_writer TO alice) or let them log in by peer, certificate
-- or a password you set yourself; kpbrowse takes credentials only by
-- libpq's conventions (~/.pgpass, PGPASSFILE, service files, environment).
--
--   kpbrowse_reader: SELECT only (list, search, show, export, the TUI).
--   kpbrowse_writer: what a push needs, and no more:
--     - meta (the schema version): read only.  Migrations and re-signing
--       are the owner's job (`kpbrowse db init`, `index --resign`); the
--       owner is not bound by the policies below.
--     - reports, paths, archives, images, panic text: INSERT, and UPDATE
--       only of the rows its own login pushed (row-level security on a
--       pushed_by column that defaults to the login, current_user): a
--       writer completes its own cut reports and moves its own paths, and
--       cannot rewrite another Mac's reports or archives.
--     - loaded kexts (kexts, kext_sets, kext_set_members; schema 8): INSERT
--       (a set is shared by every report that loaded the same kexts).
--     - groups: INSERT, and UPDATE of the counts only (count, hosts,
--       first_seen, last_seen), never a title or a key.
--     - no DELETE, no DDL anywhere.
--   A push that would change another login's row (complete a report it
--   pushed cut short; a path row of a Mac pushed before under another
--   login) fails on that file alone: one counted error naming it, and the
--   push goes on.  Push each Mac under one login.
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'kpbrowse_writer') THEN
		CREATE ROLE kpbrowse_writer LOGIN;
	END IF;
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'kpbrowse_reader') THEN
		CREATE ROLE kpbrowse_reader LOGIN;
	END IF;
END
$$;

-- who pushed each row: filled by the server, never by the client
ALTER TABLE kpbrowse.reports ADD COLUMN IF NOT EXISTS pushed_by name NOT NULL DEFAULT current_user;
ALTER TABLE kpbrowse.paths ADD COLUMN IF NOT EXISTS pushed_by name NOT NULL DEFAULT current_user;

REVOKE ALL ON ALL TABLES IN SCHEMA kpbrowse FROM kpbrowse_writer, kpbrowse_reader;
GRANT USAGE ON SCHEMA kpbrowse TO kpbrowse_writer, kpbrowse_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA kpbrowse TO kpbrowse_reader, kpbrowse_writer;
GRANT INSERT ON kpbrowse.reports, kpbrowse.paths, kpbrowse.archives, kpbrowse.images,
	kpbrowse.panic_text, kpbrowse.groups, kpbrowse.group_hosts, kpbrowse.kexts, kpbrowse.kext_sets,
	kpbrowse.kext_set_members TO kpbrowse_writer;
GRANT UPDATE ON kpbrowse.reports, kpbrowse.paths, kpbrowse.archives, kpbrowse.images,
	kpbrowse.panic_text TO kpbrowse_writer;
GRANT UPDATE (count, hosts, first_seen, last_seen) ON kpbrowse.groups TO kpbrowse_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA kpbrowse TO kpbrowse_writer;

-- row-level security: everyone reads every row; a writer inserts rows as
-- itself and updates only its own
ALTER TABLE kpbrowse.reports ENABLE ROW LEVEL SECURITY;
ALTER TABLE kpbrowse.paths ENABLE ROW LEVEL SECURITY;
ALTER TABLE kpbrowse.archives ENABLE ROW LEVEL SECURITY;
ALTER TABLE kpbrowse.images ENABLE ROW LEVEL SECURITY;
ALTER TABLE kpbrowse.panic_text ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS kp_read ON kpbrowse.reports;
DROP POLICY IF EXISTS kp_insert ON kpbrowse.reports;
DROP POLICY IF EXISTS kp_update ON kpbrowse.reports;
CREATE POLICY kp_read ON kpbrowse.reports FOR SELECT USING (true);
CREATE POLICY kp_insert ON kpbrowse.reports FOR INSERT WITH CHECK (pushed_by = current_user);
CREATE POLICY kp_update ON kpbrowse.reports FOR UPDATE
	USING (pushed_by = current_user) WITH CHECK (pushed_by = current_user);

DROP POLICY IF EXISTS kp_read ON kpbrowse.paths;
DROP POLICY IF EXISTS kp_insert ON kpbrowse.paths;
DROP POLICY IF EXISTS kp_update ON kpbrowse.paths;
CREATE POLICY kp_read ON kpbrowse.paths FOR SELECT USING (true);
CREATE POLICY kp_insert ON kpbrowse.paths FOR INSERT WITH CHECK (pushed_by = current_user);
CREATE POLICY kp_update ON kpbrowse.paths FOR UPDATE
	USING (pushed_by = current_user) WITH CHECK (pushed_by = current_user);

-- a report's archive, images and text belong to whoever pushed the report
DROP POLICY IF EXISTS kp_read ON kpbrowse.archives;
DROP POLICY IF EXISTS kp_write ON kpbrowse.archives;
CREATE POLICY kp_read ON kpbrowse.archives FOR SELECT USING (true);
CREATE POLICY kp_write ON kpbrowse.archives FOR ALL
	USING (EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by = current_user))
	WITH CHECK (EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by = current_user));

DROP POLICY IF EXISTS kp_read ON kpbrowse.images;
DROP POLICY IF EXISTS kp_write ON kpbrowse.images;
CREATE POLICY kp_read ON kpbrowse.images FOR SELECT USING (true);
CREATE POLICY kp_write ON kpbrowse.images FOR ALL
	USING (EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by = current_user))
	WITH CHECK (EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by = current_user));

-- the search text is inserted in the same statement as its report, which
-- that statement's policies cannot see yet: an insert for a report no
-- other login pushed (the new one, or its own), updates of its own only
DROP POLICY IF EXISTS kp_read ON kpbrowse.panic_text;
DROP POLICY IF EXISTS kp_write ON kpbrowse.panic_text;
DROP POLICY IF EXISTS kp_insert ON kpbrowse.panic_text;
DROP POLICY IF EXISTS kp_update ON kpbrowse.panic_text;
CREATE POLICY kp_read ON kpbrowse.panic_text FOR SELECT USING (true);
CREATE POLICY kp_insert ON kpbrowse.panic_text FOR INSERT
	WITH CHECK (NOT EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by <> current_user));
CREATE POLICY kp_update ON kpbrowse.panic_text FOR UPDATE
	USING (EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by = current_user))
	WITH CHECK (EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = report_id AND r.pushed_by = current_user));
