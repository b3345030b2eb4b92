-- Releases of a project (issue 6) and its bounded logs.
CREATE TABLE runtime_releases (
  id text PRIMARY KEY,
  -- Upload order: created_at has whole seconds only, and "newest" must be exact.
  seq bigserial NOT NULL UNIQUE,
  project_id text NOT NULL,
  project text NOT NULL,     -- the project's name (the Release's `project`)
  account_id text NOT NULL,  -- the project's account (GET /deploys across projects)
  status text NOT NULL CHECK (status IN ('building', 'live', 'ready', 'failed', 'pruned')),
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  files bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  cmd text NOT NULL DEFAULT '',
  runtime text,
  region text NOT NULL,
  error text,
  build_log text NOT NULL DEFAULT '',
  -- How it starts, set when its build succeeded (StartPlan of src/start_command.hpp).
  kind text NOT NULL DEFAULT 'process' CHECK (kind IN ('static', 'process', 'php')),
  argv jsonb NOT NULL DEFAULT '[]',
  start_env jsonb NOT NULL DEFAULT '[]',
  -- Which berthd builds it (host name and data_dir) and that process's boot id: a node that
  -- starts again fails the builds its earlier life left unfinished.
  build_node text NOT NULL DEFAULT '',
  build_boot text NOT NULL DEFAULT ''
);
CREATE INDEX runtime_releases_project ON runtime_releases (project_id, seq DESC);
CREATE INDEX runtime_releases_account ON runtime_releases (account_id, seq DESC);
-- At most one release builds per project (the second upload answers 409) and one is live.
CREATE UNIQUE INDEX runtime_releases_one_building ON runtime_releases (project_id)
  WHERE status = 'building';
CREATE UNIQUE INDEX runtime_releases_one_live ON runtime_releases (project_id)
  WHERE status = 'live';

CREATE TABLE runtime_logs (
  id bigserial PRIMARY KEY,
  project_id text NOT NULL,
  at bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('request', 'schedule', 'process', 'platform')),
  method text,
  path text,
  status integer,
  ms integer,
  message text NOT NULL DEFAULT ''
);
CREATE INDEX runtime_logs_project ON runtime_logs (project_id, id DESC);
