-- Every berthd keeps each project's live release in memory (ReleaseStore::liveOf,
-- plugin/release_store.hpp) and LISTENs on berth_runtime_live: a change to a release row, from
-- any node or an operator's own SQL, sends the project's id when it commits
-- (core.notify_key_change, the core's migration 3), and every node drops what it kept of that
-- project.
CREATE TRIGGER runtime_releases_changed AFTER INSERT OR UPDATE OR DELETE ON runtime_releases
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_runtime_live', 'project_id');
CREATE TRIGGER runtime_releases_truncated AFTER TRUNCATE ON runtime_releases
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_runtime_live', 'project_id');
