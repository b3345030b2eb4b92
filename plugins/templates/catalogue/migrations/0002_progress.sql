-- What a running install last said it is doing ("building n8n 2.41.1 for this server: npm ci,
-- 95 s so far"), shown by the install's status while it runs.
ALTER TABLE installs ADD COLUMN progress text;
ALTER TABLE installs ADD COLUMN progress_at bigint;
