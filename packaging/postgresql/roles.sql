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
--   kpbrowse_writer: SELECT, and EXECUTE on the functions `db init` made
--     (kpbrowse.report_add, report_images, archive_add, report_replace,
--     path_put, group_add, group_recount): no INSERT, UPDATE or DELETE on
--     any table, no DDL.  Each function runs as the schema's owner and
--     checks what it is given (issue 32 item 8):
--     - a report, its archive, images and search text are written only by
--       the login that pushed it (reports.pushed_by, the server's
--       session_user): a writer completes its own cut reports only;
--     - path rows are each login's own (pushed_by is part of their key):
--       a row another login plants under this Mac's host and file is that
--       login's, and this Mac's pushes never trip on it;
--     - a kext set's key is made by the server from its members, and only
--       a new set gets members: no writer can add a kext to a set others
--       share, or name a set before its reports come;
--     - group counts are kept by report_add and recounted from the
--       reports (group_recount), never set; groups are added, never
--       retitled (re-signing is the owner's: `index --resign`);
--     - meta (the schema version) is read only; migrations are the
--       owner's (`kpbrowse db init`), who is bound by none of this.
--   A file whose push would change another login's report (complete a
--   report it pushed cut short) fails on that file alone: one counted
--   error naming it, and the push goes on.
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

REVOKE ALL ON ALL TABLES IN SCHEMA kpbrowse FROM kpbrowse_writer, kpbrowse_reader;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA kpbrowse FROM kpbrowse_writer, kpbrowse_reader;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA kpbrowse FROM PUBLIC, kpbrowse_writer, kpbrowse_reader;
GRANT USAGE ON SCHEMA kpbrowse TO kpbrowse_writer, kpbrowse_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA kpbrowse TO kpbrowse_reader, kpbrowse_writer;
GRANT EXECUTE ON FUNCTION kpbrowse.report_add, kpbrowse.report_images, kpbrowse.archive_add,
	kpbrowse.report_replace, kpbrowse.path_put, kpbrowse.group_add, kpbrowse.group_recount
	TO kpbrowse_writer;

-- the row-level security policies of earlier versions: writers no longer
-- write tables at all
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['reports', 'paths', 'archives', 'images', 'panic_text'] LOOP
		EXECUTE format('DROP POLICY IF EXISTS kp_read ON kpbrowse.%I', t);
		EXECUTE format('DROP POLICY IF EXISTS kp_insert ON kpbrowse.%I', t);
		EXECUTE format('DROP POLICY IF EXISTS kp_update ON kpbrowse.%I', t);
		EXECUTE format('DROP POLICY IF EXISTS kp_write ON kpbrowse.%I', t);
		EXECUTE format('ALTER TABLE kpbrowse.%I DISABLE ROW LEVEL SECURITY', t);
	END LOOP;
END
$$;
