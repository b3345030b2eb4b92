-- The browser data API's settings (contract.md "Browser data API settings"). Runs with
-- search_path = sqlconsole. Rows are keyed by the project's id; the project.deleted hook
-- removes them.

-- One publishable key per project. It is kept as written, not as a digest: GET
-- /projects/{name}/data-api shows it again, and it is public by design (it ships in web pages
-- and grants only what the tables and functions below open), like Supabase's anon key.
CREATE TABLE data_api_keys (
  project_id text PRIMARY KEY,
  key text NOT NULL UNIQUE CHECK (key ~ '^bpk_[A-Za-z0-9]{32}$'),
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint
);

-- What the key may do per table; a table without a row is closed to every operation.
CREATE TABLE data_api_tables (
  project_id text NOT NULL,
  table_name text NOT NULL,
  can_read boolean NOT NULL DEFAULT false,
  can_create boolean NOT NULL DEFAULT false,
  can_update boolean NOT NULL DEFAULT false,
  can_delete boolean NOT NULL DEFAULT false,
  updated_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  PRIMARY KEY (project_id, table_name)
);

-- Functions of the project's public schema the key may call at /_data/rpc/<name>; a row means
-- enabled.
CREATE TABLE data_api_functions (
  project_id text NOT NULL,
  function_name text NOT NULL,
  enabled_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  PRIMARY KEY (project_id, function_name)
);
