/* sfcache--0.3--0.4.sql: from sfcache 0.3 to 0.4 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.4'" to load this file. \quit

-- sfcache.stats is cluster-wide: its comment says so.
COMMENT ON VIEW sfcache.stats IS
	'result cache counters of the whole cluster (every database: one shared cache) since the last sfcache.reset(); sfcache.statements has them per database';
