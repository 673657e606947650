/* sfcache--0.3--0.4.sql: from sfcache 0.3 to 0.4 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.4'" to load this file. \quit
