-- The replicas alive: each renews its row while it runs and deletes it at a graceful stop, so
-- hosted jobs to follow are shared among the living instead of going to whoever wakes first.
CREATE TABLE replicas (
    owner text PRIMARY KEY,
    alive_until timestamptz NOT NULL
);
