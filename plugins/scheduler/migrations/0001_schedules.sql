-- Schedules and their recent runs. Runs with search_path = scheduler.
--
-- A schedule keeps the project's id, name and owning account as they were when it was made:
-- a project's name and account never change, the id tells a later project of the same name
-- apart, and the account answers "which schedules can this caller reach" without another
-- plugin's tables. The project.deleted hook (and a sweep for missed hooks) removes them.
CREATE TABLE schedules (
  id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{48}$'),
  seq bigserial NOT NULL UNIQUE,          -- creation order, for lists
  project_id text NOT NULL,
  project_name text NOT NULL,
  project_account_id text NOT NULL,
  account_id text NOT NULL,               -- who made it
  name text NOT NULL,
  spec text NOT NULL,
  path text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at bigint NOT NULL,
  -- The next run in scheduler time; null exactly while paused. A node claims a run by moving
  -- it forward with "WHERE next_run_at = <the value it read>", so one node wins each run.
  next_run_at bigint,
  last_run_at bigint,
  last_status integer,
  last_ms bigint,
  last_error text,
  CHECK (enabled = (next_run_at IS NOT NULL))
);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled;
CREATE INDEX schedules_project ON schedules (project_id, seq);
CREATE INDEX schedules_account ON schedules (project_account_id);

-- The last 50 runs of each schedule (older ones are trimmed as new ones are written). No
-- foreign key: a run may finish after its schedule was removed; such rows are swept.
CREATE TABLE runs (
  schedule_id text NOT NULL,
  seq bigserial NOT NULL,
  due_at bigint NOT NULL,                 -- the minute it ran for
  started_at bigint NOT NULL,
  status integer,
  ms bigint NOT NULL,
  error text,
  PRIMARY KEY (schedule_id, seq)
);
