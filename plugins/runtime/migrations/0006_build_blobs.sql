-- The packed release folder: after a successful build the folder the build made (node_modules
-- and all) is packed into a gzip tar in the blob space "builds", keyed by the release id, so a
-- node that did not build the release can unpack it (plugin/release_fetch). Recorded in the
-- transaction that makes the release live: the blob's SHA-256 (hex) and size, and what it
-- unpacks to (entries: files, folders and links; bytes: file contents), the exact limits its
-- unpacking is held to. NULL: a release built before releases were packed, whose folder exists
-- only on the node that built it (build_node).
ALTER TABLE runtime_releases
  ADD COLUMN build_sha256 text,
  ADD COLUMN build_size bigint,
  ADD COLUMN build_entries bigint,
  ADD COLUMN build_bytes bigint;
