-- roles.sql: the two roles kpbrowse uses on a PostgreSQL server.  A
-- superuser runs it on the index's database after `kpbrowse db init` (and
-- again after a db init that migrated the schema):
--     psql -d DBNAME -f packaging/postgresql/roles.sql
-- Both roles are created without passwords: give people their own login
-- (GRANT kpbrowse_writer TO alice) or let them log in by peer, certificate
-- or a password you set yourself; kpbrowse takes credentials only by
-- libpq's conventions (~/.pgpass, PGPASSFILE, service files, environment).
--   kpbrowse_writer: what a push needs (SELECT, INSERT, UPDATE; no DDL, no DELETE)
--   kpbrowse_reader: SELECT only (list, search, show, export, the TUI)
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
GRANT USAGE ON SCHEMA kpbrowse TO kpbrowse_writer, kpbrowse_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA kpbrowse TO kpbrowse_reader;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA kpbrowse TO kpbrowse_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA kpbrowse TO kpbrowse_writer;
