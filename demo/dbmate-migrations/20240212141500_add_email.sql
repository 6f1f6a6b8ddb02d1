-- migrate:up
ALTER TABLE customer ADD COLUMN email TEXT;

-- migrate:down
ALTER TABLE customer DROP COLUMN email;
