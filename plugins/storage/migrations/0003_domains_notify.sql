-- A custom domain added, verified, moved or removed through one node must stop the other
-- nodes' edges sending its files at once: each node keeps host links in its own edge tree
-- (README.md, "Several nodes") and LISTENs on berth_storage_domains. A change to a row of the
-- projects plugin's domains (this plugin depends on it, so its tables exist first), from any
-- node, its expiry job or an operator's own SQL, sends the project's id when it commits
-- (core.notify_key_change, the core's migration 3; a project's delete cascades here too).
CREATE TRIGGER storage_domains_changed AFTER INSERT OR UPDATE OR DELETE ON projects.domains
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_storage_domains', 'project_id');
CREATE TRIGGER storage_domains_truncated AFTER TRUNCATE ON projects.domains
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_storage_domains', 'project_id');
