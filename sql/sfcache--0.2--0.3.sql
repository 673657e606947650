/* sfcache--0.2--0.3.sql: from sfcache 0.2 to 0.3 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.3'" to load this file. \quit
