-- The plugin's tables live in the schema named after it.
create schema if not exists hello;

create table hello.visits (
  id bigserial primary key,
  at bigint not null -- Unix seconds
);
