-- Which berthd began a project's creation or deletion ("<host>:<data_dir>:<boot id>"), so that
-- the next start of that same berthd finishes a row its crash left 'creating' or 'deleting'
-- at once, while rows of other nodes (perhaps still at work) wait ten minutes.
ALTER TABLE projects ADD COLUMN made_by text NOT NULL DEFAULT '';
