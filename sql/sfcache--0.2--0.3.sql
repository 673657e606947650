/* sfcache--0.2--0.3.sql: from sfcache 0.2 to 0.3 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.3'" to load this file. \quit

-- ---- bus: the Redis invalidation bus (extension/bus) ----

CREATE FUNCTION sfcache.bus_state(
	OUT node text, OUT role text, OUT state text, OUT worker_pid integer,
	OUT state_since timestamptz,
	OUT redis_url text, OUT channel text, OUT last_error text,
	OUT sent bigint, OUT received bigint, OUT own_skipped bigint,
	OUT dropped bigint, OUT duplicates bigint, OUT gaps bigint,
	OUT flushes bigint, OUT malformed bigint, OUT queued bigint,
	OUT replay_lsn pg_lsn, OUT horizon_lsn pg_lsn, OUT pending_lsn pg_lsn,
	OUT pending_relations integer, OUT standby_caching boolean)
RETURNS record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_bus_state_0_3';

CREATE FUNCTION sfcache.bus_peer_list(
	OUT node text, OUT role text, OUT system_identifier numeric,
	OUT last_seq bigint, OUT watermark pg_lsn, OUT highest_lsn pg_lsn,
	OUT last_heard timestamptz, OUT alive boolean)
RETURNS SETOF record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_bus_peers_0_3';

CREATE VIEW sfcache.bus AS
	SELECT b.*,
		(SELECT pg_catalog.count(*) FROM sfcache.bus_peer_list() p WHERE p.alive) AS peers_alive,
		(SELECT pg_catalog.count(*) FROM sfcache.bus_peer_list() p WHERE NOT p.alive) AS peers_gone
	FROM sfcache.bus_state() b;
COMMENT ON VIEW sfcache.bus IS 'the Redis invalidation bus: state, counters, a standby''s replay against its pending invalidations';
GRANT SELECT ON sfcache.bus TO PUBLIC;

CREATE VIEW sfcache.bus_peers AS
	SELECT * FROM sfcache.bus_peer_list();
COMMENT ON VIEW sfcache.bus_peers IS 'the other nodes on the Redis bus: last sequence number, watermark, liveness';
GRANT SELECT ON sfcache.bus_peers TO PUBLIC;
