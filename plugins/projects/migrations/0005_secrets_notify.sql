-- A project's process app runs on one node (runtime.app_owners), but a secret may be set or
-- deleted through any node. Every berthd LISTENs on berth_project_secrets: a change to a secret
-- row, from any node or an operator's own SQL, sends the project's id when it commits
-- (core.notify_key_change, the core's migration 3), and the node running that project's app
-- restarts it with the new environment (the runtime's README, "Hooks").
CREATE TRIGGER secrets_changed AFTER INSERT OR UPDATE OR DELETE ON secrets
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_project_secrets', 'project_id');
CREATE TRIGGER secrets_truncated AFTER TRUNCATE ON secrets
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_project_secrets', 'project_id');
