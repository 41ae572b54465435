-- Claims take the oldest active job by when it was made: the ULID after ':task_' in its id
-- (the id itself begins with the model's name).
CREATE INDEX jobs_active_by_made ON jobs (local, split_part(id, ':task_', 2))
    WHERE status IN ('queued', 'running');

-- What removed jobs spent, written in the removal's own transaction and never deleted: the
-- monthly caps, the daily seconds budgets, the spend report and /metrics count these beside
-- the jobs still kept.
CREATE TABLE spend_ledger (
    job_id     text PRIMARY KEY,
    project_id text NOT NULL,
    -- The calendar month (YYYY-MM) and day (YYYY-MM-DD, UTC) the job was made in.
    month      text NOT NULL,
    day        text NOT NULL,
    provider   text NOT NULL,
    -- What it cost (0 when nothing was spent).
    spend_usd  double precision NOT NULL,
    -- Seconds counted against the provider's daily budget (0 when it failed before it was sent).
    seconds    integer NOT NULL,
    -- The whole entry, as a single server's ledger file keeps it.
    entry      jsonb NOT NULL
);
CREATE INDEX spend_ledger_by_month ON spend_ledger (month);
CREATE INDEX spend_ledger_by_day ON spend_ledger (provider, day);
