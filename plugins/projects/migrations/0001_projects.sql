-- Projects and what hangs off them. Runs with search_path = projects.
CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,              -- label-slug: unique everywhere because slugs are
  label text NOT NULL,
  account_id text NOT NULL,
  status text NOT NULL DEFAULT 'creating' CHECK (status IN ('creating', 'ready', 'deleting')),
  region text NOT NULL DEFAULT 'us-central',
  cmd text NOT NULL DEFAULT '',
  ignore_dockerfile boolean NOT NULL DEFAULT false,
  cache_enabled boolean NOT NULL DEFAULT true,
  cache_ttl integer NOT NULL DEFAULT 60 CHECK (cache_ttl BETWEEN 0 AND 31536000),
  db_name text,
  db_role text,
  db_password text,                       -- sealed with the plugin's key, never plain
  db_bytes bigint NOT NULL DEFAULT 0,     -- refreshed by a job
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  status_changed_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint
);
CREATE INDEX projects_account ON projects (account_id, name);

CREATE TABLE secrets (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('runtime', 'build', 'both')),
  sealed_value text NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, name)
);

CREATE TABLE domains (
  host text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  token text NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  verified_at bigint
);
CREATE INDEX domains_project ON domains (project_id);

CREATE TABLE creation_throttle (
  account_id text PRIMARY KEY,
  tokens double precision NOT NULL,
  updated_at double precision NOT NULL
);
