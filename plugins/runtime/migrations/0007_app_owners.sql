-- Which node runs each project's app (several berthd on one control plane; app_owners.hpp).
-- One row per project whose app runs somewhere: claimed by one statement (INSERT ... ON
-- CONFLICT DO UPDATE ... WHERE the owner is the claiming node or its claim was not renewed
-- for 5 s), renewed every second while the app runs, removed when it stops. node_id is the
-- owner's id in core.nodes (core setting cluster.node_id), new at each start of berthd.
CREATE TABLE app_owners (
  project_id text PRIMARY KEY,
  node_id text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  renewed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_owners_node_id_idx ON app_owners (node_id);
