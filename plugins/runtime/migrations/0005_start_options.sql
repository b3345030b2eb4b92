-- Each project's start options (runtime.apps.v1 set_start_options): what its app is started
-- with beyond its release. One row per project, replaced whole; removed with the project
-- (project.deleting and project.deleted). NULL and empty mean "the runtime's default".
CREATE TABLE start_options (
  project_id text PRIMARY KEY,
  readiness_path text,
  start_timeout_seconds integer CHECK (start_timeout_seconds BETWEEN 1 AND 900),
  read_only_paths jsonb NOT NULL DEFAULT '[]',  -- folders under runtime.shared_dir
  environment jsonb NOT NULL DEFAULT '{}',      -- {NAME: value}
  updated_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint
);
