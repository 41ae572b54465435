-- When each review note was posted on each link, so that every replica counts a link's notes
-- of the last minute alike (a listing of the bucket may be minutes old at a replica).
CREATE TABLE review_posts (
    share_id text NOT NULL,
    at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX review_posts_by_share ON review_posts (share_id, at);
