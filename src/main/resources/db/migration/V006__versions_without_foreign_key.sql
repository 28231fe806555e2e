-- A version row is only ever inserted by a statement that joins its live table, and tables are
-- never deleted while they have versions, so the foreign key adds nothing but a trigger and a
-- row lock on every commit.
ALTER TABLE table_versions DROP CONSTRAINT table_versions_table_id_fkey;
