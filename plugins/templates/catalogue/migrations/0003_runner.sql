-- Which berthd runs an install ("<host>:<data_dir>:<boot id>", a new boot id at every start),
-- so that the next start of that same berthd marks failed at once an install its crash left
-- 'installing', instead of leaving it running (and the project refusing installs) until the
-- heartbeat goes stale. Installs of other nodes still wait for their heartbeat to go stale.
ALTER TABLE installs ADD COLUMN runner text NOT NULL DEFAULT '';
