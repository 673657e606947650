/*-------------------------------------------------------------------------
 *
 * cache_inval_hooks.c
 *		Which hook events are writes: the ExecutorStart, ProcessUtility and
 *		object access entry points core_hooks.c dispatches here, each
 *		noting in the transaction's write set (cache_inval_writeset.c) what
 *		the statement or command writes, before or after it runs.
 *
 * Writes are seen through ExecutorStart (INSERT, UPDATE, DELETE, MERGE,
 * from clients, SPI, triggers and foreign-key actions alike), the utility
 * hook (COPY FROM, REFRESH MATERIALIZED VIEW, TRUNCATE, ALTER TABLE,
 * COMMIT PREPARED) and the object access hook (any other ALTER or DROP of a
 * relation, and a child attached to or detached from a parent). A write
 * to a relation counts for its ancestors too, inheritance parents and
 * partitioned tables alike, since a read of a parent reads its children.
 * TRUNCATE, COMMIT PREPARED, a change to a function, type, domain,
 * operator, collation, text search object, policy or rule, GRANT or
 * REVOKE on a function and a change of role membership bump a global
 * generation that every entry depends on: they are rare, and which entries
 * they affect is not known to this hook. So does every commit of a
 * logical replication worker (cache_inval_commit.c): on a subscriber the
 * apply worker writes tables without the executor's hooks. CREATE INDEX,
 * VACUUM and ANALYZE change no row but plans, and so the order of rows:
 * they are plan changes, not writes.
 *
 * Locking: no shared state of its own. Relation names are looked up with
 * NoLock, before the command takes its own locks, except COPY FROM's
 * table, locked AccessShare first to read its capture triggers as
 * committed; a trigger's table is read from pg_trigger under
 * AccessShareLock.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_cast.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_conversion.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_policy.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_rewrite.h"
#include "catalog/pg_transform.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_ts_config.h"
#include "catalog/pg_ts_dict.h"
#include "catalog/pg_ts_parser.h"
#include "catalog/pg_ts_template.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/bitmapset.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "cache/cache_internal.h"

/* ExecutorStart (core_hooks.c): note the relations the statement writes. */
void
CacheExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;

	/*
	 * A cached plan is not planned again unless something invalidates it:
	 * this is where a client's statement learns that sfcache was created or
	 * dropped in its database since the plan was made (base_extension.c then
	 * resets the plan cache, for its next execution).
	 */
	if (sfc_nesting_level == 0)
		(void) SfcExtensionActive();
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY) &&
		(stmt->commandType != CMD_SELECT || stmt->hasModifyingCTE))
	{
		Bitmapset  *targets = SfcResultRelationRelids(stmt);
		int			rti = -1;

		while ((rti = bms_next_member(targets, rti)) >= 0)
			CacheNoteRowWrite(rt_fetch(rti, stmt->rtable)->relid);
	}
}

static Oid
relid_of(RangeVar *rv)
{
	return rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;
}

/* Note the writes a utility statement makes, before it runs. */
static void
note_utility_writes(Node *stmt)
{
	switch (nodeTag(stmt))
	{
		case T_CopyStmt:
			if (((CopyStmt *) stmt)->is_from)
			{
				Oid			relid = relid_of(((CopyStmt *) stmt)->relation);

				/*
				 * Before COPY takes its own lock: lock now, so that trigger
				 * DDL committed since this transaction's last lock is seen.
				 */
				if (OidIsValid(relid))
					LockRelationOid(relid, AccessShareLock);
				CacheNoteRowWrite(relid);
			}
			break;
		case T_RefreshMatViewStmt:
			CacheNoteRelationWrite(relid_of(((RefreshMatViewStmt *) stmt)->relation));
			break;
		case T_IndexStmt:
			/* no row changes, but plans and the order they return rows in do */
			CacheNotePlanChange(relid_of(((IndexStmt *) stmt)->relation));
			break;
		case T_AlterTableStmt:
			CacheNoteRelationWrite(relid_of(((AlterTableStmt *) stmt)->relation));
			/* a composite type's values are in results, not in its relation */
			if (((AlterTableStmt *) stmt)->objtype == OBJECT_TYPE)
				CacheNoteGlobalWrite();
			break;
		case T_GrantStmt:
			{
				ObjectType	type = ((GrantStmt *) stmt)->objtype;

				/* a hit checks EXECUTE itself; this drops what was computed */
				if (type == OBJECT_FUNCTION || type == OBJECT_PROCEDURE ||
					type == OBJECT_ROUTINE)
					CacheNoteGlobalWrite();
			}
			break;
		case T_AlterDomainStmt:
			/* its constraints are added and dropped with no hook on the type */
			CacheNoteGlobalWrite();
			break;
		case T_GrantRoleStmt:
		case T_AlterRoleStmt:
			/* membership and BYPASSRLS change what row security lets through */
			CacheNoteGlobalWrite();
			break;
		case T_TruncateStmt:
			{
				ListCell   *lc;

				/* the global bump covers CASCADE; the tables are counted */
				foreach(lc, ((TruncateStmt *) stmt)->relations)
					CacheNoteRelationWrite(relid_of(lfirst_node(RangeVar, lc)));
				CacheNoteGlobalWrite();
			}
			break;
		default:
			break;
	}
}

/*
 * VACUUM and ANALYZE change no row, but the statistics they leave choose
 * other plans, and without ORDER BY the plan decides the order of the rows:
 * results over the tables they processed are dropped. Noted after the
 * command, in the transaction it leaves open (VACUUM commits its own).
 */
static void
note_statistics_change(VacuumStmt *stmt)
{
	ListCell   *lc;

	if (!IsTransactionState())
		return;
	if (stmt->rels == NIL)
		CacheNoteGlobalWrite();
	foreach(lc, stmt->rels)
		CacheNotePlanChange(relid_of(lfirst_node(VacuumRelation, lc)->relation));
}

/*
 * ProcessUtility (core_hooks.c), before the command: note the writes it
 * makes. COMMIT PREPARED makes another transaction's writes visible, and
 * which relations it wrote is not known here: it is a global write in
 * flight until CacheUtilityWritesEnd(true). Returns whether it was one.
 */
bool
CacheUtilityWritesBegin(Node *stmt)
{
	note_utility_writes(stmt);
	if (!IsA(stmt, TransactionStmt) ||
		((TransactionStmt *) stmt)->kind != TRANS_STMT_COMMIT_PREPARED)
		return false;
	CacheCommitPreparedBegin();
	return true;
}

/* ProcessUtility, after the command, whether it succeeded or failed. */
void
CacheUtilityWritesEnd(bool commit_prepared)
{
	if (commit_prepared)
		CacheCommitPreparedEnd();
}

/* ProcessUtility, after the command succeeded. */
void
CacheUtilityDone(Node *stmt)
{
	if (IsA(stmt, VacuumStmt))
		note_statistics_change((VacuumStmt *) stmt);
}

/*
 * Catalogs whose objects change what a statement computes without the
 * statement naming them as relations: types and domains (constraints,
 * enum labels), operators and their families, collations, conversions,
 * text search objects, transforms, policies and rules. Results do not
 * record which of these they depend on, so a change to one invalidates
 * everything, at commit. Creating one changes no existing result (only
 * statements parsed later can use it), and dropping one drops or blocks
 * what depends on it, except for the kinds that take effect without being
 * named: an operator family member, a policy, a rule, a cast.
 */
static bool
changes_results(ObjectAccessType access, Oid classId)
{
	switch (classId)
	{
		case ProcedureRelationId:
		case AccessMethodOperatorRelationId:
		case AccessMethodProcedureRelationId:
		case PolicyRelationId:
		case RewriteRelationId:
		case CastRelationId:
			return access == OAT_POST_CREATE || access == OAT_POST_ALTER ||
				access == OAT_DROP;
		case TypeRelationId:
		case EnumRelationId:
		case OperatorRelationId:
		case OperatorClassRelationId:
		case OperatorFamilyRelationId:
		case CollationRelationId:
		case ConversionRelationId:
		case TSConfigRelationId:
		case TSDictionaryRelationId:
		case TSParserRelationId:
		case TSTemplateRelationId:
		case TransformRelationId:
			return access == OAT_POST_ALTER;
		default:
			return false;
	}
}

/* The table of a trigger being created, altered or dropped. */
static Oid
trigger_relation(Oid trigoid)
{
	Relation	catalog = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			relid = InvalidOid;

	ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(trigoid));
	scan = systable_beginscan(catalog, TriggerOidIndexId, true, SnapshotSelf, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		relid = ((Form_pg_trigger) GETSTRUCT(tup))->tgrelid;
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return relid;
}

/* The object access hook (core_hooks.c), after the previous one. */
void
CacheObjectAccess(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (!IsTransactionState())
		return;
	if (classId == RelationRelationId &&
		(access == OAT_POST_ALTER || access == OAT_DROP))
	{
		CacheNoteRelationWrite(objectId);
		/* a dropped index changes its table's plans (see CREATE INDEX) */
		if (access == OAT_DROP && get_rel_relkind(objectId) == RELKIND_INDEX)
			CacheNotePlanChange(IndexGetRelation(objectId, true));
	}

	/*
	 * A child attached to or detached from a parent (CREATE TABLE ...
	 * INHERITS or PARTITION OF, ALTER TABLE ... [NO] INHERIT, ATTACH and
	 * DETACH PARTITION): the parent is named here, since the catalog this
	 * command changes may not show it yet or any more.
	 */
	if (classId == InheritsRelationId && access == OAT_POST_ALTER)
	{
		CacheInheritanceChanged();
		CacheNoteRelationWrite(objectId);
		if (arg != NULL)
			CacheNoteRelationWrite(((ObjectAccessPostAlter *) arg)->auxiliary_id);
	}

	/*
	 * A trigger created, altered or dropped may start or stop the capture of
	 * a table's rows: this transaction's later writes of it must not count on
	 * an earlier decision (CacheNoteRowWrite).
	 */
	if (classId == TriggerRelationId)
		CacheNoteRelationWrite(trigger_relation(objectId));

	if (changes_results(access, classId))
		CacheNoteGlobalWrite();
}
