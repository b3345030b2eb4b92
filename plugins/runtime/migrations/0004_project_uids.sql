-- Each project's own uid (and gid, the same number) on every node, from runtime.uid_range:
-- its app, php-cgi and builds run as it. Never shared (UNIQUE) and kept while the project
-- exists; the row goes with the project (project.deleted), which frees the number.
CREATE TABLE runtime_project_uids (
  project_id text PRIMARY KEY,
  uid integer NOT NULL UNIQUE CHECK (uid > 0)
);
