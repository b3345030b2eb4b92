-- Every berthd keeps each project's files_count and files_bytes in memory (BlobStore::fileUsage,
-- plugin/blob_store.hpp) and LISTENs on berth_storage_usage: a change to a blob row, from any
-- node or an operator's own SQL, sends the project's id when it commits (core.notify_key_change,
-- the core's migration 3), and every node drops what it kept of that project. Only the files
-- space counts for usage, but every row notifies: simpler, and PostgreSQL sends a transaction's
-- equal notifications once.
CREATE TRIGGER blobs_changed AFTER INSERT OR UPDATE OR DELETE ON blobs
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_storage_usage', 'project_id');
CREATE TRIGGER blobs_truncated AFTER TRUNCATE ON blobs
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_storage_usage', 'project_id');
