-- migrate:up
CREATE UNIQUE INDEX customer_email ON customer(email);

-- migrate:down
DROP INDEX customer_email;
