<?php

/**
 * The tree the parser builds from one MySQL statement (namespace Berth\Pg\Ast).
 *
 * Every node keeps `int $pos`, the byte offset of its first token in the MySQL text, so that
 * later passes can point at the construct they refuse. Names are as written (case kept,
 * backticks removed); keywords, operators and function names are upper-case. All classes
 * live in this one file on purpose: autoload.php loads it for any Berth\Pg\Ast\ name.
 */

declare(strict_types=1);

namespace Berth\Pg\Ast;

abstract class Node
{
    public int $pos = 0;
}

// ---------------------------------------------------------------- expressions

abstract class Expr extends Node
{
}

final class Literal extends Expr
{
    /**
     * @param string $kind  'string'|'number'|'null'|'bool'|'hex'
     * @param string $value strings decoded to raw bytes (MySQL escapes applied, NUL kept);
     *                      numbers as written; bool '1'/'0'; null ''; hex: the hex digits
     *                      as written (0xABC -> 'ABC', X'ABC' -> 'ABC')
     */
    public function __construct(public string $kind, public string $value, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class ColumnRef extends Expr
{
    /** column '*' for `t.*`; schema: the db of db.table.column (rare) */
    public function __construct(
        public ?string $table,
        public string $column,
        int $pos = 0,
        public ?string $schema = null
    ) {
        $this->pos = $pos;
    }
}

/** Bare `*` (select list, COUNT(*)). */
final class Star extends Expr
{
    public function __construct(int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Variable extends Expr
{
    /** @@session.sql_mode -> ('sql_mode', true, 'SESSION'); @x -> ('x', false, null) */
    public function __construct(
        public string $name,
        public bool $system,
        public ?string $scope = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Unary extends Expr
{
    /** op: '-', '+', 'NOT', '!', '~', 'BINARY' */
    public function __construct(public string $op, public Expr $operand, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Binary extends Expr
{
    /**
     * op: '=', '<=>', '!=' ('<>' normalised), '<', '<=', '>', '>=', 'AND', 'OR', 'XOR',
     * '+', '-', '*', '/', 'DIV', '%' ('MOD' normalised), '&', '|', '^', '<<', '>>'.
     * '&&' becomes 'AND', '||' becomes 'OR' (MySQL's default sql_mode).
     */
    public function __construct(
        public string $op,
        public Expr $left,
        public Expr $right,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Like extends Expr
{
    public function __construct(
        public Expr $left,
        public Expr $pattern,
        public ?Expr $escape = null,
        public bool $not = false,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

/** REGEXP / RLIKE */
final class Regexp extends Expr
{
    public function __construct(
        public Expr $left,
        public Expr $pattern,
        public bool $not = false,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class In extends Expr
{
    /** @param Expr[] $list empty when $subquery is set */
    public function __construct(
        public Expr $left,
        public array $list,
        public ?Select $subquery = null,
        public bool $not = false,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Between extends Expr
{
    public function __construct(
        public Expr $expr,
        public Expr $low,
        public Expr $high,
        public bool $not = false,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class IsTest extends Expr
{
    /** what: 'NULL'|'TRUE'|'FALSE'|'UNKNOWN' */
    public function __construct(
        public Expr $expr,
        public string $what,
        public bool $not = false,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class FunctionCall extends Expr
{
    /**
     * @param Expr[]      $args
     * @param OrderItem[] $orderBy GROUP_CONCAT(... ORDER BY ...)
     * VALUES(col) in ON DUPLICATE KEY UPDATE is FunctionCall 'VALUES' with one ColumnRef.
     * Niladic forms written without parentheses (CURRENT_TIMESTAMP, CURRENT_DATE, ...) are
     * FunctionCalls with no args too.
     */
    public function __construct(
        public string $name,
        public array $args = [],
        public bool $distinct = false,
        public array $orderBy = [],
        public ?Expr $separator = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Cast extends Expr
{
    /** CAST(x AS T) and CONVERT(x, T); type upper-case: 'SIGNED'|'UNSIGNED'|'CHAR'|'DECIMAL'|... */
    public function __construct(
        public Expr $expr,
        public string $type,
        public ?int $length = null,
        public ?int $scale = null,
        public ?string $charset = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Interval extends Expr
{
    /** unit upper-case: 'DAY'|'SECOND'|'MINUTE'|'HOUR'|'WEEK'|'MONTH'|'YEAR'|'DAY_HOUR'|... */
    public function __construct(public Expr $value, public string $unit, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class CaseExpr extends Expr
{
    /** @param array<int, array{0: Expr, 1: Expr}> $whens [[when, then], ...] */
    public function __construct(
        public ?Expr $operand,
        public array $whens,
        public ?Expr $else = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Exists extends Expr
{
    public function __construct(public Select $query, public bool $not = false, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

/** A scalar subquery. */
final class Subquery extends Expr
{
    public function __construct(public Select $query, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Collate extends Expr
{
    public function __construct(public Expr $expr, public string $collation, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

/** (a, b) row value */
final class Tuple extends Expr
{
    /** @param Expr[] $items */
    public function __construct(public array $items, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

/** The keyword DEFAULT as a value (INSERT ... VALUES (DEFAULT), SET x = DEFAULT). */
final class DefaultValue extends Expr
{
    public function __construct(int $pos = 0)
    {
        $this->pos = $pos;
    }
}

// ---------------------------------------------------------------- table references

abstract class TableRef extends Node
{
}

final class IndexHint extends Node
{
    /**
     * @param string   $kind    'USE'|'FORCE'|'IGNORE'
     * @param string   $for     ''|'JOIN'|'ORDER BY'|'GROUP BY'
     * @param string[] $indexes names (PRIMARY as written)
     */
    public function __construct(
        public string $kind,
        public string $for,
        public array $indexes,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class TableName extends TableRef
{
    /**
     * @param IndexHint[] $indexHints USE/FORCE/IGNORE INDEX, kept so they can be dropped
     * @param ?string     $schema     db.table: the db part
     */
    public function __construct(
        public string $name,
        public ?string $alias = null,
        public array $indexHints = [],
        int $pos = 0,
        public ?string $schema = null
    ) {
        $this->pos = $pos;
    }
}

final class DerivedTable extends TableRef
{
    public function __construct(public Select $query, public string $alias, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Join extends TableRef
{
    /**
     * @param string    $type  'INNER'|'LEFT'|'RIGHT'|'CROSS'|'STRAIGHT'
     *                         (NATURAL joins are refused by the parser)
     * @param ?string[] $using USING (a, b)
     */
    public function __construct(
        public string $type,
        public TableRef $left,
        public TableRef $right,
        public ?Expr $on = null,
        public ?array $using = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

// ---------------------------------------------------------------- statements

abstract class Statement extends Node
{
    /** The statement's whole MySQL text, as given to the parser. */
    public string $sql = '';
}

final class SelectItem extends Node
{
    /** text: the item's exact MySQL source text without alias (MySQL's column name) */
    public function __construct(
        public Expr $expr,
        public ?string $alias,
        public string $text,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class OrderItem extends Node
{
    public function __construct(public Expr $expr, public bool $desc = false, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Select extends Statement
{
    /**
     * @param SelectItem[] $columns
     * @param TableRef[]   $from    comma list
     * @param Expr[]       $groupBy
     * @param OrderItem[]  $orderBy for a UNION: the ORDER BY of the whole union
     * @param array<int, array{0: bool, 1: Select}> $unions [[all, select], ...]
     * @param bool $lockInShareMode  LOCK IN SHARE MODE / FOR SHARE
     */
    public function __construct(
        public bool $distinct = false,
        public bool $calcFoundRows = false,
        public array $columns = [],
        public array $from = [],
        public ?Expr $where = null,
        public array $groupBy = [],
        public ?Expr $having = null,
        public array $orderBy = [],
        public ?Expr $limit = null,
        public ?Expr $offset = null,
        public array $unions = [],
        public bool $forUpdate = false,
        int $pos = 0,
        public bool $lockInShareMode = false
    ) {
        $this->pos = $pos;
    }
}

final class Insert extends Statement
{
    /**
     * @param string   $verb    'INSERT'|'REPLACE'
     * @param string[] $columns empty when not given
     * @param Expr[][] $rows
     * @param array<int, array{0: string, 1: Expr}> $onDuplicate [[column, expr], ...]
     * INSERT ... SET a=1 is parsed into columns + one row.
     */
    public function __construct(
        public string $verb,
        public bool $ignore,
        public string $table,
        public array $columns = [],
        public array $rows = [],
        public ?Select $select = null,
        public array $onDuplicate = [],
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Update extends Statement
{
    /**
     * @param TableRef[] $tables
     * @param array<int, array{0: ColumnRef, 1: Expr}> $set
     * @param OrderItem[] $orderBy
     */
    public function __construct(
        public array $tables,
        public array $set,
        public ?Expr $where = null,
        public array $orderBy = [],
        public ?Expr $limit = null,
        public bool $ignore = false,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Delete extends Statement
{
    /**
     * @param string[]   $targets multi-table: names/aliases deleted from; single-table: []
     * @param TableRef[] $from    single-table: [TableName]
     * @param OrderItem[] $orderBy
     */
    public function __construct(
        public array $targets,
        public array $from,
        public ?Expr $where = null,
        public array $orderBy = [],
        public ?Expr $limit = null,
        int $pos = 0,
        public bool $ignore = false
    ) {
        $this->pos = $pos;
    }
}

final class ColumnDef extends Node
{
    /**
     * @param string    $type     lower-case: 'bigint','varchar','longtext','datetime',...
     * @param ?string[] $values   enum/set members (decoded)
     * @param ?bool     $nullable null = not said
     */
    public function __construct(
        public string $name,
        public string $type,
        public ?int $length = null,
        public ?int $scale = null,
        public bool $unsigned = false,
        public bool $zerofill = false,
        public ?array $values = null,
        public ?bool $nullable = null,
        public ?Expr $default = null,
        public bool $autoIncrement = false,
        public bool $primaryKey = false,
        public bool $unique = false,
        public ?string $charset = null,
        public ?string $collation = null,
        public ?Expr $onUpdate = null,
        public ?string $comment = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class IndexDef extends Node
{
    /**
     * @param string $kind 'PRIMARY'|'UNIQUE'|'INDEX'|'FULLTEXT'|'SPATIAL'
     * @param array<int, array{name: string, length: ?int, desc: bool}> $columns
     * @param ?string $using   'BTREE'|'HASH' when written (USING ...)
     * @param ?string $comment COMMENT '...' when written
     */
    public function __construct(
        public string $kind,
        public ?string $name,
        public array $columns,
        int $pos = 0,
        public ?string $using = null,
        public ?string $comment = null
    ) {
        $this->pos = $pos;
    }
}

final class CreateTable extends Statement
{
    /**
     * @param ColumnDef[] $columns
     * @param IndexDef[]  $indexes
     * @param array<string, string> $options keys upper-case: 'ENGINE', 'CHARSET' ([DEFAULT]
     *        CHARACTER SET / CHARSET), 'COLLATE' ([DEFAULT] COLLATE), 'AUTO_INCREMENT',
     *        'COMMENT', 'ROW_FORMAT', 'AVG_ROW_LENGTH', 'MAX_ROWS', 'MIN_ROWS',
     *        'KEY_BLOCK_SIZE'; values as written (strings decoded)
     */
    public function __construct(
        public string $name,
        public bool $ifNotExists,
        public array $columns = [],
        public array $indexes = [],
        public array $options = [],
        int $pos = 0,
        public bool $temporary = false
    ) {
        $this->pos = $pos;
    }
}

final class AlterAction extends Node
{
    /**
     * kind: 'ADD COLUMN'|'ADD INDEX'|'DROP COLUMN'|'DROP INDEX'|'DROP PRIMARY KEY'|
     *       'CHANGE COLUMN'|'MODIFY COLUMN'|'RENAME'|'CONVERT CHARSET'|'OPTION'|
     *       'ALTER COLUMN SET DEFAULT'|'ALTER COLUMN DROP DEFAULT'
     * ADD PRIMARY KEY / ADD UNIQUE KEY / ADD FULLTEXT are 'ADD INDEX' with the IndexDef's kind;
     * ADD without COLUMN (ADD col type) is 'ADD COLUMN'.
     * name: old column/index name (CHANGE, DROP, ALTER COLUMN), new table name (RENAME).
     * CONVERT CHARSET: options ['CHARSET' => x, 'COLLATE' => y]; OPTION: table options (as in
     * CreateTable). default: the value of ALTER COLUMN c SET DEFAULT v.
     * CREATE INDEX / DROP INDEX ... ON t are parsed as AlterTable with one such action.
     */
    public function __construct(
        public string $kind,
        public ?ColumnDef $column = null,
        public ?IndexDef $index = null,
        public ?string $name = null,
        public ?string $after = null,
        public bool $first = false,
        int $pos = 0,
        public array $options = [],
        public ?Expr $default = null
    ) {
        $this->pos = $pos;
    }
}

final class AlterTable extends Statement
{
    /** @param AlterAction[] $actions */
    public function __construct(public string $table, public array $actions, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class DropTable extends Statement
{
    /** @param string[] $names */
    public function __construct(
        public array $names,
        public bool $ifExists,
        int $pos = 0,
        public bool $temporary = false
    ) {
        $this->pos = $pos;
    }
}

final class TruncateTable extends Statement
{
    public function __construct(public string $name, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Show extends Statement
{
    /**
     * what upper-case: 'TABLES'|'FULL TABLES'|'COLUMNS'|'FULL COLUMNS'|'INDEX'|'VARIABLES'|
     * 'TABLE STATUS'|'CREATE TABLE'|'GRANTS'|'DATABASES'|'STATUS'|'COLLATION'|'CHARACTER SET'|
     * 'ENGINES'|'PROCESSLIST'|'WARNINGS'|'ERRORS'.
     * table: SHOW COLUMNS/INDEX FROM t, SHOW CREATE TABLE t; database: FROM/IN db of SHOW TABLES
     * (and the second FROM of SHOW COLUMNS FROM t FROM db). like: decoded LIKE pattern.
     * global: GLOBAL scope for VARIABLES/STATUS (SESSION and none are false).
     */
    public function __construct(
        public string $what,
        public ?string $table = null,
        public ?string $like = null,
        public ?Expr $where = null,
        public bool $global = false,
        int $pos = 0,
        public ?string $database = null
    ) {
        $this->pos = $pos;
    }
}

/** DESCRIBE/DESC/EXPLAIN <table> [column] */
final class Describe extends Statement
{
    public function __construct(public string $table, public ?string $column = null, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

final class Set extends Statement
{
    /**
     * @param array<int, array{0: Variable, 1: Expr}> $assignments SET a = 1, @@x = 2;
     *        `SET sql_mode = ...` and `SET SESSION x = ...` give Variable(x, true, 'SESSION'|null)
     * names/collate: SET NAMES x [COLLATE y]  (SET CHARACTER SET x also fills names)
     */
    public function __construct(
        public array $assignments = [],
        public ?string $names = null,
        public ?string $collate = null,
        int $pos = 0
    ) {
        $this->pos = $pos;
    }
}

final class Transaction extends Statement
{
    /**
     * action: 'BEGIN' (also START TRANSACTION)|'COMMIT'|'ROLLBACK'|'SAVEPOINT'|'RELEASE'|
     *         'ROLLBACK TO'
     */
    public function __construct(public string $action, public ?string $savepoint = null, int $pos = 0)
    {
        $this->pos = $pos;
    }
}

/** LOCK TABLES t [AS a] READ|WRITE, ... and UNLOCK TABLES (tables []). */
final class LockTables extends Statement
{
    /**
     * @param array<int, array{table: string, alias: ?string, mode: string}> $tables
     *        mode 'READ'|'WRITE'|'READ LOCAL'|'LOW_PRIORITY WRITE'
     */
    public function __construct(public bool $unlock, public array $tables = [], int $pos = 0)
    {
        $this->pos = $pos;
    }
}

/** OPTIMIZE|ANALYZE|CHECK|REPAIR TABLE t, ... */
final class TableMaintenance extends Statement
{
    /** @param string[] $tables */
    public function __construct(public string $action, public array $tables, int $pos = 0)
    {
        $this->pos = $pos;
    }
}
