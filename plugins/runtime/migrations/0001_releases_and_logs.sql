-- Releases of a project (issue 6) and its bounded logs.
CREATE TABLE runtime_releases (
  id text PRIMARY KEY,
  project_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('building', 'live', 'ready', 'failed', 'pruned')),
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  files bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  cmd text NOT NULL DEFAULT '',
  runtime text,
  region text NOT NULL,
  error text,
  blob_key text,
  build_log text NOT NULL DEFAULT ''
);
CREATE INDEX runtime_releases_project ON runtime_releases (project_id, created_at DESC);
CREATE INDEX runtime_releases_created ON runtime_releases (created_at DESC);
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
