-- The blob store's metadata. Runs with search_path = storage.
-- One row per blob: (project_id, space, key) names it, `object` is where the backend keeps
-- its bytes (written once, never changed; a replace points the row at a new object).
-- project_id is the projects plugin's id, kept without a foreign key: plugins own their
-- tables, and the project.deleting hook removes a project's rows.
CREATE TABLE blobs (
  project_id text NOT NULL,
  space text NOT NULL,
  key text COLLATE "C" NOT NULL,          -- byte order: prefix listings walk the primary key
  object text NOT NULL UNIQUE,
  size bigint NOT NULL CHECK (size >= 0),
  content_type text NOT NULL,
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, space, key)
);

-- files_count and files_bytes of many projects at once, from the index alone.
CREATE INDEX blobs_usage ON blobs (space, project_id) INCLUDE (size);
