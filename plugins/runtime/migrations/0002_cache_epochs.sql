-- The edge cache's purge counter per project (DELETE /projects/{name}/cache bumps it). It is
-- part of the cache key of every rule, so a purge on any node is seen by every node.
CREATE TABLE runtime_cache_epochs (
  project_id text PRIMARY KEY,
  epoch bigint NOT NULL
);
