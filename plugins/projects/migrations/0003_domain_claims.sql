-- Several projects may claim the same host; a claim owns it only once verified. So a host is
-- unique among verified claims alone, and a claim is named by its host and its project.
-- Verifying a claim removes the other claims of the host in the same transaction.
ALTER TABLE domains DROP CONSTRAINT domains_pkey;
ALTER TABLE domains ADD PRIMARY KEY (host, project_id);
CREATE UNIQUE INDEX domains_verified_host ON domains (host) WHERE verified;
-- The expiry job removes unverified claims older than projects.domain_claim_days.
CREATE INDEX domains_unverified ON domains (created_at) WHERE NOT verified;
