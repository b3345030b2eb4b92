-- Each node's edge sends a project's stored files under its custom domains from a tree of links
-- of its own (the storage plugin's README, "Several nodes"), so a domain added, verified, moved
-- or removed through one node must reach the others at once. Every berthd LISTENs on
-- berth_project_domains: a change to a domain row, from any node, the claims job or an
-- operator's own SQL, sends the project's id when it commits (core.notify_key_change, the core's
-- migration 3; a project's deletion cascades here too).
CREATE TRIGGER domains_changed AFTER INSERT OR UPDATE OR DELETE ON domains
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_project_domains', 'project_id');
CREATE TRIGGER domains_truncated AFTER TRUNCATE ON domains
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_project_domains', 'project_id');
