-- How many times a job was claimed after its lease had run out (its replica died, froze or
-- crashed on it), as opposed to never claimed or handed back at a graceful stop: a job whose
-- handling keeps killing replicas is given up on after a few.
ALTER TABLE jobs ADD COLUMN lapses integer NOT NULL DEFAULT 0;
