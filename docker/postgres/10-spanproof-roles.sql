-- The database roles Spanproof expects (docs/configuration.md, "Database roles"), made
-- once when docker-compose.yml's PostgreSQL initialises its data volume: the image runs
-- this file with psql as its superuser. The same split as the embedded server
-- (config/embedded_postgres.py):
--   spanproof_owner  owns the database, the schema and (after `manage.py migrate`,
--                    which connects as it through DATABASE_OWNER_URL) every table;
--   spanproof_app    what web, worker and beat connect as (DATABASE_URL): rows only,
--                    granted by `migrate`; it owns nothing, so the append-only triggers
--                    bind it (a superuser would pass them).
-- Neither is a superuser. The passwords come from the db service's environment
-- (psql's \getenv, psql 15 or later); an initialised volume keeps the roles as they are.

\set ON_ERROR_STOP on
\getenv owner_password SPANPROOF_DB_OWNER_PASSWORD
\getenv app_password SPANPROOF_DB_APP_PASSWORD

CREATE ROLE spanproof_owner LOGIN CREATEDB NOSUPERUSER NOCREATEROLE PASSWORD :'owner_password';
CREATE ROLE spanproof_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';

-- pgvector is not a trusted extension: the superuser installs it, in template1 too so
-- that every database made later (the test databases) has it.
\connect template1
CREATE EXTENSION IF NOT EXISTS vector;
\connect postgres
CREATE DATABASE spanproof OWNER spanproof_owner;
\connect spanproof
CREATE EXTENSION IF NOT EXISTS vector;
ALTER SCHEMA public OWNER TO spanproof_owner;
