-- Installs of starter apps into projects. Runs with search_path = templates.
--
-- One row per install attempt. At most one install per project runs at a time (the partial
-- unique index makes a second one a conflict on every node). A running install renews
-- heartbeat_at; one whose node died stops renewing it and is taken over as failed by the next
-- attempt, so a crash never locks a project out.
CREATE TABLE installs (
  id bigserial PRIMARY KEY,
  project_id text NOT NULL,
  project_name text NOT NULL,
  template text NOT NULL,
  caller text NOT NULL,
  status text NOT NULL CHECK (status IN ('installing', 'installed', 'failed')),
  started_at bigint NOT NULL,
  heartbeat_at bigint NOT NULL,
  finished_at bigint,
  error text,
  answer jsonb
);
CREATE UNIQUE INDEX installs_one_running ON installs (project_id) WHERE status = 'installing';
CREATE INDEX installs_by_project ON installs (project_id, id DESC);
