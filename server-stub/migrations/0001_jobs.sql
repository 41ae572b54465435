-- Job records, the queue and the stream of job changes, shared by every replica.

CREATE TABLE jobs (
    id          text PRIMARY KEY,
    project_id  text NOT NULL,
    -- queued, running, done or error: the record's status, kept here for the queue's index.
    status      text NOT NULL,
    -- Rendered by the embedded engine (claimed by a worker) or followed at a hosted provider.
    local       boolean NOT NULL,
    -- The whole record, as the data folder keeps it in files.
    record      jsonb NOT NULL,
    -- Raised by every write: a write names the version it changed, so none is lost.
    version     bigint NOT NULL,
    -- The replica working on the job, until when, and under which attempt (the fencing token).
    lease_owner text,
    lease_until timestamptz,
    attempt     integer NOT NULL DEFAULT 0
);

CREATE INDEX jobs_active ON jobs (local, id) WHERE status IN ('queued', 'running');

CREATE TABLE job_events (
    seq        bigserial PRIMARY KEY,
    job_id     text NOT NULL,
    project_id text NOT NULL,
    removed    boolean NOT NULL,
    version    bigint NOT NULL,
    record     jsonb NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
);
