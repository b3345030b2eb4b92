-- A custom domain added, verified, moved or removed on one node must reach the others at once:
-- the storage plugin keeps host links in each node's edge tree (plugins/storage/README.md,
-- "Several nodes") and LISTENs on berth_project_domains. A change to a domain row, from any
-- node, the expiry job or an operator's own SQL, sends the project's id when it commits
-- (core.notify_key_change, the core's migration 3; a project's delete cascades here too).
CREATE TRIGGER domains_changed AFTER INSERT OR UPDATE OR DELETE ON domains
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_project_domains', 'project_id');
CREATE TRIGGER domains_truncated AFTER TRUNCATE ON domains
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_project_domains', 'project_id');
