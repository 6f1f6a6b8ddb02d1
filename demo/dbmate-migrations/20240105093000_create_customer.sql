-- migrate:up
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);

-- migrate:down
DROP TABLE customer;
