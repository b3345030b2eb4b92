<?php

/**
 * A recursive-descent parser for the MySQL dialect WordPress speaks: one statement in, one
 * Ast\Statement out. Expressions follow MySQL's operator precedence (see README.md, Parser).
 * Anything it does not know is a ParseError naming the offset; it never guesses.
 */

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;
use Berth\Pg\Ast\Expr;

final class Parser
{
    /**
     * MySQL's reserved words (those WordPress-era MySQL/MariaDB refuse as bare identifiers).
     * A bare word in this set is never read as a column, table or implicit alias.
     */
    private const RESERVED = [
        'ACCESSIBLE' => 1, 'ADD' => 1, 'ALL' => 1, 'ALTER' => 1, 'ANALYZE' => 1, 'AND' => 1,
        'AS' => 1, 'ASC' => 1, 'ASENSITIVE' => 1, 'BEFORE' => 1, 'BETWEEN' => 1, 'BIGINT' => 1,
        'BINARY' => 1, 'BLOB' => 1, 'BOTH' => 1, 'BY' => 1, 'CALL' => 1, 'CASCADE' => 1,
        'CASE' => 1, 'CHANGE' => 1, 'CHAR' => 1, 'CHARACTER' => 1, 'CHECK' => 1, 'COLLATE' => 1,
        'COLUMN' => 1, 'CONDITION' => 1, 'CONSTRAINT' => 1, 'CONTINUE' => 1, 'CONVERT' => 1,
        'CREATE' => 1, 'CROSS' => 1, 'CURRENT_DATE' => 1, 'CURRENT_TIME' => 1,
        'CURRENT_TIMESTAMP' => 1, 'CURRENT_USER' => 1, 'CURSOR' => 1, 'DATABASE' => 1,
        'DATABASES' => 1, 'DAY_HOUR' => 1, 'DAY_MICROSECOND' => 1, 'DAY_MINUTE' => 1,
        'DAY_SECOND' => 1, 'DEC' => 1, 'DECIMAL' => 1, 'DECLARE' => 1, 'DEFAULT' => 1,
        'DELAYED' => 1, 'DELETE' => 1, 'DESC' => 1, 'DESCRIBE' => 1, 'DETERMINISTIC' => 1,
        'DISTINCT' => 1, 'DISTINCTROW' => 1, 'DIV' => 1, 'DOUBLE' => 1, 'DROP' => 1, 'DUAL' => 1,
        'EACH' => 1, 'ELSE' => 1, 'ELSEIF' => 1, 'ENCLOSED' => 1, 'ESCAPED' => 1, 'EXCEPT' => 1,
        'EXISTS' => 1, 'EXIT' => 1, 'EXPLAIN' => 1, 'FALSE' => 1, 'FETCH' => 1, 'FLOAT' => 1,
        'FLOAT4' => 1, 'FLOAT8' => 1, 'FOR' => 1, 'FORCE' => 1, 'FOREIGN' => 1, 'FROM' => 1,
        'FULLTEXT' => 1, 'FUNCTION' => 1, 'GENERATED' => 1, 'GET' => 1, 'GRANT' => 1, 'GROUP' => 1,
        'HAVING' => 1, 'HIGH_PRIORITY' => 1, 'HOUR_MICROSECOND' => 1, 'HOUR_MINUTE' => 1,
        'HOUR_SECOND' => 1, 'IF' => 1, 'IGNORE' => 1, 'IN' => 1, 'INDEX' => 1, 'INFILE' => 1,
        'INNER' => 1, 'INOUT' => 1, 'INSENSITIVE' => 1, 'INSERT' => 1, 'INT' => 1, 'INT1' => 1,
        'INT2' => 1, 'INT3' => 1, 'INT4' => 1, 'INT8' => 1, 'INTEGER' => 1, 'INTERSECT' => 1,
        'INTERVAL' => 1, 'INTO' => 1, 'IS' => 1, 'ITERATE' => 1, 'JOIN' => 1, 'KEY' => 1,
        'KEYS' => 1, 'KILL' => 1, 'LEADING' => 1, 'LEAVE' => 1, 'LEFT' => 1, 'LIKE' => 1,
        'LIMIT' => 1, 'LINEAR' => 1, 'LINES' => 1, 'LOAD' => 1, 'LOCALTIME' => 1,
        'LOCALTIMESTAMP' => 1, 'LOCK' => 1, 'LONG' => 1, 'LONGBLOB' => 1, 'LONGTEXT' => 1,
        'LOOP' => 1, 'LOW_PRIORITY' => 1, 'MATCH' => 1, 'MAXVALUE' => 1, 'MEDIUMBLOB' => 1,
        'MEDIUMINT' => 1, 'MEDIUMTEXT' => 1, 'MIDDLEINT' => 1, 'MINUTE_MICROSECOND' => 1,
        'MINUTE_SECOND' => 1, 'MOD' => 1, 'MODIFIES' => 1, 'NATURAL' => 1, 'NOT' => 1,
        'NO_WRITE_TO_BINLOG' => 1, 'NULL' => 1, 'NUMERIC' => 1, 'ON' => 1, 'OPTIMIZE' => 1,
        'OPTION' => 1, 'OPTIONALLY' => 1, 'OR' => 1, 'ORDER' => 1, 'OUT' => 1, 'OUTER' => 1,
        'OUTFILE' => 1, 'OVER' => 1, 'PARTITION' => 1, 'PRECISION' => 1, 'PRIMARY' => 1,
        'PROCEDURE' => 1, 'PURGE' => 1, 'RANGE' => 1, 'READ' => 1, 'READS' => 1,
        'READ_WRITE' => 1, 'REAL' => 1, 'RECURSIVE' => 1, 'REFERENCES' => 1, 'REGEXP' => 1,
        'RELEASE' => 1, 'RENAME' => 1, 'REPEAT' => 1, 'REPLACE' => 1, 'REQUIRE' => 1,
        'RESIGNAL' => 1, 'RESTRICT' => 1, 'RETURN' => 1, 'REVOKE' => 1, 'RIGHT' => 1, 'RLIKE' => 1,
        'ROWS' => 1, 'SCHEMA' => 1, 'SCHEMAS' => 1, 'SECOND_MICROSECOND' => 1, 'SELECT' => 1,
        'SENSITIVE' => 1, 'SEPARATOR' => 1, 'SET' => 1, 'SHOW' => 1, 'SIGNAL' => 1,
        'SMALLINT' => 1, 'SPATIAL' => 1, 'SPECIFIC' => 1, 'SQL' => 1, 'SQLEXCEPTION' => 1,
        'SQLSTATE' => 1, 'SQLWARNING' => 1, 'SQL_BIG_RESULT' => 1, 'SQL_CALC_FOUND_ROWS' => 1,
        'SQL_SMALL_RESULT' => 1, 'SSL' => 1, 'STARTING' => 1, 'STORED' => 1, 'STRAIGHT_JOIN' => 1,
        'TABLE' => 1, 'TERMINATED' => 1, 'THEN' => 1, 'TINYBLOB' => 1, 'TINYINT' => 1,
        'TINYTEXT' => 1, 'TO' => 1, 'TRAILING' => 1, 'TRIGGER' => 1, 'TRUE' => 1, 'UNDO' => 1,
        'UNION' => 1, 'UNIQUE' => 1, 'UNLOCK' => 1, 'UNSIGNED' => 1, 'UPDATE' => 1, 'USAGE' => 1,
        'USE' => 1, 'USING' => 1, 'UTC_DATE' => 1, 'UTC_TIME' => 1, 'UTC_TIMESTAMP' => 1,
        'VALUES' => 1, 'VARBINARY' => 1, 'VARCHAR' => 1, 'VARCHARACTER' => 1, 'VARYING' => 1,
        'VIRTUAL' => 1, 'WHEN' => 1, 'WHERE' => 1, 'WHILE' => 1, 'WINDOW' => 1, 'WITH' => 1,
        'WRITE' => 1, 'XOR' => 1, 'YEAR_MONTH' => 1, 'ZEROFILL' => 1,
    ];

    /** Reserved words that are still function names when a "(" follows. */
    private const RESERVED_FUNCTIONS = [
        'IF' => 1, 'LEFT' => 1, 'RIGHT' => 1, 'REPLACE' => 1, 'INSERT' => 1, 'MOD' => 1,
        'CHAR' => 1, 'DATABASE' => 1, 'SCHEMA' => 1, 'VALUES' => 1, 'REPEAT' => 1,
        'CURRENT_USER' => 1, 'CURRENT_DATE' => 1, 'CURRENT_TIME' => 1, 'CURRENT_TIMESTAMP' => 1,
        'LOCALTIME' => 1, 'LOCALTIMESTAMP' => 1, 'UTC_DATE' => 1, 'UTC_TIME' => 1,
        'UTC_TIMESTAMP' => 1,
    ];

    /** Functions MySQL lets you write without parentheses. */
    private const NILADIC = [
        'CURRENT_DATE' => 1, 'CURRENT_TIME' => 1, 'CURRENT_TIMESTAMP' => 1, 'CURRENT_USER' => 1,
        'LOCALTIME' => 1, 'LOCALTIMESTAMP' => 1, 'UTC_DATE' => 1, 'UTC_TIME' => 1,
        'UTC_TIMESTAMP' => 1,
    ];

    /** Binary operators between bit expressions: precedence (higher binds tighter). */
    private const BIT_OPS = [
        '|' => 1, '&' => 2, '<<' => 3, '>>' => 3, '+' => 4, '-' => 4,
        '*' => 5, '/' => 5, '%' => 5, 'DIV' => 5, 'MOD' => 5, '^' => 6,
    ];

    /** Words that continue an expression after an operand (operators and predicates). */
    private const OPERATOR_WORDS = [
        'OR' => 1, 'XOR' => 1, 'AND' => 1, 'NOT' => 1, 'IS' => 1, 'IN' => 1, 'BETWEEN' => 1,
        'LIKE' => 1, 'REGEXP' => 1, 'RLIKE' => 1, 'SOUNDS' => 1, 'MEMBER' => 1, 'DIV' => 1,
        'MOD' => 1, 'COLLATE' => 1, 'ESCAPE' => 1,
    ];

    /** Words that continue a bit expression right after its operand. */
    private const AFTER_OPERAND_WORDS = ['DIV' => 1, 'MOD' => 1, 'COLLATE' => 1];

    private const REFUSED_COLUMN_ATTRIBUTES = [
        'GENERATED' => 1, 'AS' => 1, 'REFERENCES' => 1, 'CHECK' => 1, 'COLUMN_FORMAT' => 1,
        'STORAGE' => 1, 'BINARY' => 1, 'INVISIBLE' => 1, 'VISIBLE' => 1,
    ];

    private const COMPARISONS = [
        '=' => '=', '<=>' => '<=>', '!=' => '!=', '<>' => '!=', '<' => '<', '<=' => '<=',
        '>' => '>', '>=' => '>=',
    ];

    private const INTERVAL_UNITS = [
        'MICROSECOND' => 1, 'SECOND' => 1, 'MINUTE' => 1, 'HOUR' => 1, 'DAY' => 1, 'WEEK' => 1,
        'MONTH' => 1, 'QUARTER' => 1, 'YEAR' => 1, 'SECOND_MICROSECOND' => 1,
        'MINUTE_MICROSECOND' => 1, 'MINUTE_SECOND' => 1, 'HOUR_MICROSECOND' => 1,
        'HOUR_SECOND' => 1, 'HOUR_MINUTE' => 1, 'DAY_MICROSECOND' => 1, 'DAY_SECOND' => 1,
        'DAY_MINUTE' => 1, 'DAY_HOUR' => 1, 'YEAR_MONTH' => 1,
    ];

    private const CAST_TYPES = [
        'SIGNED' => 1, 'UNSIGNED' => 1, 'CHAR' => 1, 'NCHAR' => 1, 'DECIMAL' => 1, 'DATE' => 1,
        'DATETIME' => 1, 'TIME' => 1, 'BINARY' => 1, 'DOUBLE' => 1, 'FLOAT' => 1, 'JSON' => 1,
        'INTEGER' => 1, 'INT' => 1,
    ];

    private const COLUMN_TYPES = [
        'tinyint' => 1, 'smallint' => 1, 'mediumint' => 1, 'int' => 1, 'integer' => 1,
        'bigint' => 1, 'decimal' => 1, 'dec' => 1, 'numeric' => 1, 'fixed' => 1, 'float' => 1,
        'double' => 1, 'real' => 1, 'bit' => 1, 'bool' => 1, 'boolean' => 1, 'date' => 1,
        'datetime' => 1, 'timestamp' => 1, 'time' => 1, 'year' => 1, 'char' => 1, 'varchar' => 1,
        'binary' => 1, 'varbinary' => 1, 'tinyblob' => 1, 'blob' => 1, 'mediumblob' => 1,
        'longblob' => 1, 'tinytext' => 1, 'text' => 1, 'mediumtext' => 1, 'longtext' => 1,
        'enum' => 1, 'set' => 1, 'json' => 1,
    ];

    /** How deep expressions may nest. */
    private const MAX_DEPTH = 200;

    private string $sql = '';
    private int $depth = 0;
    /** @var Token[] */
    private array $t = [];
    private int $i = 0;
    private Lexer $lexer;

    public function __construct()
    {
        $this->lexer = new Lexer();
    }

    /** @throws ParseError */
    public function parse(string $sql): Ast\Statement
    {
        $this->sql = $sql;
        $this->t = $this->lexer->tokenize($sql);
        $this->i = 0;
        $this->depth = 0;
        $statement = $this->statement();
        $this->acceptOp(';');
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::END) {
            $this->fail('unexpected ' . $this->describe($tok) . ' after the end of the statement');
        }
        $statement->sql = $sql;
        $this->t = [];
        return $statement;
    }

    // ------------------------------------------------------------ statements

    private function statement(): Ast\Statement
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::OP && $tok->value === '(') {
            return $this->selectStatement();
        }
        if ($tok->type !== Token::WORD) {
            $this->fail('a statement must start with a keyword, not ' . $this->describe($tok));
        }
        switch ($tok->upper) {
            case 'SELECT':
                return $this->selectStatement();
            case 'INSERT':
            case 'REPLACE':
                return $this->insertStatement();
            case 'UPDATE':
                return $this->updateStatement();
            case 'DELETE':
                return $this->deleteStatement();
            case 'CREATE':
                return $this->createStatement();
            case 'ALTER':
                return $this->alterStatement();
            case 'DROP':
                return $this->dropStatement();
            case 'TRUNCATE':
                $this->i++;
                $this->acceptWord('TABLE');
                $name = $this->tableIdent('TRUNCATE');
                return new Ast\TruncateTable($name, $tok->pos);
            case 'SHOW':
                return $this->showStatement();
            case 'DESCRIBE':
            case 'DESC':
            case 'EXPLAIN':
                return $this->describeStatement();
            case 'SET':
                return $this->setStatement();
            case 'START':
            case 'BEGIN':
            case 'COMMIT':
            case 'ROLLBACK':
            case 'SAVEPOINT':
            case 'RELEASE':
                return $this->transactionStatement();
            case 'LOCK':
            case 'UNLOCK':
                return $this->lockStatement();
            case 'OPTIMIZE':
            case 'ANALYZE':
            case 'CHECK':
            case 'REPAIR':
                return $this->maintenanceStatement();
        }
        $this->fail('unknown statement ' . $tok->upper);
    }

    // ------------------------------------------------------------ SELECT

    private function selectStatement(): Ast\Select
    {
        if (++$this->depth > self::MAX_DEPTH) {
            $this->fail('statements nested more than ' . self::MAX_DEPTH . ' deep');
        }
        $pos = $this->t[$this->i]->pos;
        [$head, $headParens] = $this->selectTerm();
        $unions = [];
        while ($this->acceptWord('UNION')) {
            $all = $this->acceptWord('ALL');
            if (!$all) {
                $this->acceptWord('DISTINCT');
            }
            [$part] = $this->selectTerm();
            $unions[] = [$all, $part];
        }
        $tail = $this->isWord('ORDER') || $this->isWord('LIMIT');
        if ($headParens && ($unions !== [] || $tail)
            && ($head->orderBy !== [] || $head->limit !== null || $head->unions !== [])) {
            $this->fail('ORDER BY or LIMIT both inside and after a parenthesised SELECT');
        }
        if ($unions !== []) {
            $head->unions = $unions;
        }
        $this->orderLimitLock($head);
        $head->pos = $pos;
        $this->depth--;
        return $head;
    }

    /** @return array{0: Ast\Select, 1: bool} the select and whether it was parenthesised */
    private function selectTerm(): array
    {
        if ($this->acceptOp('(')) {
            $select = $this->selectStatement();
            $this->expectOp(')');
            return [$select, true];
        }
        return [$this->selectCore(), false];
    }

    /** SELECT ... FROM ... WHERE ... GROUP BY ... HAVING (no ORDER BY/LIMIT: see orderLimitLock). */
    private function selectCore(): Ast\Select
    {
        $pos = $this->expectWord('SELECT')->pos;
        $select = new Ast\Select(pos: $pos);
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type !== Token::WORD) {
                break;
            }
            switch ($tok->upper) {
                case 'ALL':
                    break;
                case 'DISTINCT':
                case 'DISTINCTROW':
                    $select->distinct = true;
                    break;
                case 'SQL_CALC_FOUND_ROWS':
                    $select->calcFoundRows = true;
                    break;
                // Optimizer hints without a meaning for the result.
                case 'HIGH_PRIORITY':
                case 'SQL_SMALL_RESULT':
                case 'SQL_BIG_RESULT':
                case 'SQL_BUFFER_RESULT':
                case 'SQL_NO_CACHE':
                case 'SQL_CACHE':
                    break;
                case 'STRAIGHT_JOIN':
                    break;
                default:
                    break 2;
            }
            $this->i++;
        }
        do {
            $select->columns[] = $this->selectItem();
        } while ($this->acceptOp(','));
        if ($this->isWord('INTO')) {
            $this->fail('SELECT ... INTO is not supported');
        }
        if ($this->acceptWord('FROM')) {
            if ($this->acceptWord('DUAL')) {
                $select->from = [];
            } else {
                $select->from = $this->tableReferences();
            }
        }
        if ($this->acceptWord('WHERE')) {
            $select->where = $this->expr();
        }
        if ($this->isWord('GROUP')) {
            $this->i++;
            $this->expectWord('BY');
            do {
                $select->groupBy[] = $this->expr();
                if ($this->isWord('ASC') || $this->isWord('DESC')) {
                    $this->fail('ASC/DESC in GROUP BY is not supported');
                }
            } while ($this->acceptOp(','));
            if ($this->isWord('WITH')) {
                $this->fail('GROUP BY ... WITH ROLLUP is not supported');
            }
        }
        if ($this->acceptWord('HAVING')) {
            $select->having = $this->expr();
        }
        if ($this->isWord('WINDOW')) {
            $this->fail('WINDOW clauses are not supported');
        }
        return $select;
    }

    /** ORDER BY / LIMIT / FOR UPDATE of a whole SELECT (or UNION) */
    private function orderLimitLock(Ast\Select $select): void
    {
        if ($this->isWord('ORDER')) {
            $select->orderBy = $this->orderBy();
        }
        if ($this->isWord('LIMIT')) {
            [$select->limit, $select->offset] = $this->limit(true);
        }
        if ($this->isWord('FOR')) {
            $this->i++;
            if ($this->acceptWord('UPDATE')) {
                $select->forUpdate = true;
            } elseif ($this->acceptWord('SHARE')) {
                $select->lockInShareMode = true;
            } else {
                $this->fail('expected UPDATE or SHARE after FOR');
            }
            if ($this->isWord('NOWAIT') || $this->isWord('SKIP') || $this->isWord('OF')) {
                $this->fail('NOWAIT / SKIP LOCKED / OF in a locking clause is not supported');
            }
        } elseif ($this->isWord('LOCK')) {
            $this->i++;
            $this->expectWord('IN');
            $this->expectWord('SHARE');
            $this->expectWord('MODE');
            $select->lockInShareMode = true;
        }
    }

    private function selectItem(): Ast\SelectItem
    {
        $start = $this->t[$this->i];
        if ($start->type === Token::OP && $start->value === '*') {
            $this->i++;
            return new Ast\SelectItem(new Ast\Star($start->pos), null, '*', $start->pos);
        }
        $expr = $this->expr();
        $end = $this->t[$this->i - 1]->end;
        $text = substr($this->sql, $start->pos, $end - $start->pos);
        $alias = $this->alias(true);
        return new Ast\SelectItem($expr, $alias, $text, $start->pos);
    }

    /** [AS] alias; strings allowed for select items ('AS 'x''). */
    private function alias(bool $stringAllowed): ?string
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && $tok->upper === 'AS') {
            $this->i++;
            $tok = $this->t[$this->i];
            if ($tok->type === Token::WORD || $tok->type === Token::QUOTED_IDENT
                || ($stringAllowed && $tok->type === Token::STRING)) {
                $this->i++;
                return $tok->value;
            }
            $this->fail('expected an alias after AS');
        }
        if ($tok->type === Token::QUOTED_IDENT || ($stringAllowed && $tok->type === Token::STRING)
            || ($tok->type === Token::WORD && !isset(self::RESERVED[$tok->upper]))) {
            $this->i++;
            return $tok->value;
        }
        return null;
    }

    /** @return Ast\OrderItem[] */
    private function orderBy(): array
    {
        $this->expectWord('ORDER');
        $this->expectWord('BY');
        $items = [];
        do {
            $pos = $this->t[$this->i]->pos;
            $expr = $this->expr();
            $desc = false;
            if ($this->acceptWord('DESC')) {
                $desc = true;
            } else {
                $this->acceptWord('ASC');
            }
            $items[] = new Ast\OrderItem($expr, $desc, $pos);
        } while ($this->acceptOp(','));
        return $items;
    }

    /**
     * LIMIT n | LIMIT offset, n | LIMIT n OFFSET offset
     * @return array{0: Expr, 1: ?Expr}
     */
    private function limit(bool $offsetAllowed): array
    {
        $this->expectWord('LIMIT');
        $first = $this->limitValue();
        if ($offsetAllowed && $this->acceptOp(',')) {
            return [$this->limitValue(), $first];
        }
        if ($offsetAllowed && $this->acceptWord('OFFSET')) {
            return [$first, $this->limitValue()];
        }
        return [$first, null];
    }

    private function limitValue(): Expr
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::NUMBER && ctype_digit($tok->value)) {
            $this->i++;
            return new Ast\Literal('number', $tok->value, $tok->pos);
        }
        $this->fail('LIMIT takes whole numbers, not ' . $this->describe($tok));
    }

    // ------------------------------------------------------------ table references

    /** @return Ast\TableRef[] a comma list */
    private function tableReferences(): array
    {
        $refs = [];
        do {
            $refs[] = $this->tableReference();
        } while ($this->acceptOp(','));
        return $refs;
    }

    private function tableReference(): Ast\TableRef
    {
        $left = $this->tableFactor();
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type !== Token::WORD) {
                return $left;
            }
            $type = null;
            switch ($tok->upper) {
                case 'JOIN':
                    $type = 'INNER';
                    $this->i++;
                    break;
                case 'INNER':
                case 'CROSS':
                    $type = $tok->upper;
                    $this->i++;
                    $this->expectWord('JOIN');
                    break;
                case 'STRAIGHT_JOIN':
                    $type = 'STRAIGHT';
                    $this->i++;
                    break;
                case 'LEFT':
                case 'RIGHT':
                    $type = $tok->upper;
                    $this->i++;
                    $this->acceptWord('OUTER');
                    $this->expectWord('JOIN');
                    break;
                case 'NATURAL':
                    $this->fail('NATURAL JOIN is not supported');
                    // no break: fail() throws
                case 'FULL':
                    $this->fail('FULL JOIN is not supported');
                    // no break
                default:
                    return $left;
            }
            $right = $this->tableFactor();
            $on = null;
            $using = null;
            if ($this->acceptWord('ON')) {
                $on = $this->expr();
            } elseif ($this->acceptWord('USING')) {
                $this->expectOp('(');
                $using = [];
                do {
                    $using[] = $this->identifier();
                } while ($this->acceptOp(','));
                $this->expectOp(')');
            } elseif ($type === 'LEFT' || $type === 'RIGHT') {
                $this->fail($type . ' JOIN needs ON or USING');
            }
            // MySQL: JOIN without a condition is a cross join.
            if ($on === null && $using === null && $type === 'INNER') {
                $type = 'CROSS';
            }
            $left = new Ast\Join($type, $left, $right, $on, $using, $left->pos);
        }
    }

    private function tableFactor(): Ast\TableRef
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::OP && $tok->value === '(') {
            $next = $this->t[$this->i + 1];
            if ($next->type === Token::WORD && $next->upper === 'SELECT') {
                $this->i++;
                $query = $this->selectStatement();
                $this->expectOp(')');
                $alias = $this->alias(false);
                if ($alias === null) {
                    $this->fail('a derived table needs an alias');
                }
                return new Ast\DerivedTable($query, $alias, $tok->pos);
            }
            $this->i++;
            if (++$this->depth > self::MAX_DEPTH) {
                $this->fail('table references nested more than ' . self::MAX_DEPTH . ' deep');
            }
            $refs = $this->tableReferences();
            $this->depth--;
            $this->expectOp(')');
            $ref = array_shift($refs);
            foreach ($refs as $more) {
                $ref = new Ast\Join('CROSS', $ref, $more, null, null, $ref->pos);
            }
            return $ref;
        }
        [$schema, $name] = $this->qualifiedName();
        $alias = $this->alias(false);
        $hints = [];
        while (true) {
            $t = $this->t[$this->i];
            if ($t->type !== Token::WORD || ($t->upper !== 'USE' && $t->upper !== 'FORCE' && $t->upper !== 'IGNORE')) {
                break;
            }
            $this->i++;
            if (!$this->acceptWord('INDEX')) {
                $this->expectWord('KEY');
            }
            $for = '';
            if ($this->acceptWord('FOR')) {
                if ($this->acceptWord('JOIN')) {
                    $for = 'JOIN';
                } elseif ($this->acceptWord('ORDER')) {
                    $this->expectWord('BY');
                    $for = 'ORDER BY';
                } else {
                    $this->expectWord('GROUP');
                    $this->expectWord('BY');
                    $for = 'GROUP BY';
                }
            }
            $this->expectOp('(');
            $indexes = [];
            if (!$this->isOp(')')) {
                do {
                    $indexes[] = $this->anyIdentifier();
                } while ($this->acceptOp(','));
            }
            $this->expectOp(')');
            $hints[] = new Ast\IndexHint($t->upper, $for, $indexes, $t->pos);
        }
        return new Ast\TableName($name, $alias, $hints, $tok->pos, $schema);
    }

    // ------------------------------------------------------------ INSERT / REPLACE

    private function insertStatement(): Ast\Insert
    {
        $verbTok = $this->t[$this->i++];
        $ignore = false;
        while (true) {
            if (
                $this->acceptWord('LOW_PRIORITY') || $this->acceptWord('DELAYED')
                || $this->acceptWord('HIGH_PRIORITY')
            ) {
                continue;
            }
            if ($verbTok->upper === 'INSERT' && $this->acceptWord('IGNORE')) {
                $ignore = true;
                continue;
            }
            break;
        }
        $this->acceptWord('INTO');
        $table = $this->tableIdent($verbTok->upper);
        $insert = new Ast\Insert($verbTok->upper, $ignore, $table, pos: $verbTok->pos);
        if ($this->isWord('PARTITION')) {
            $this->fail('PARTITION is not supported');
        }
        if ($this->acceptWord('SET')) {
            $row = [];
            do {
                $insert->columns[] = $this->columnName();
                $this->expectAssign();
                $row[] = $this->valueOrDefault();
            } while ($this->acceptOp(','));
            $insert->rows = [$row];
        } else {
            $tok = $this->t[$this->i];
            if ($tok->type === Token::OP && $tok->value === '(') {
                $next = $this->t[$this->i + 1];
                if ($next->type === Token::WORD && $next->upper === 'SELECT') {
                    $insert->select = $this->selectStatement();
                } else {
                    $this->i++;
                    if (!$this->isOp(')')) {
                        do {
                            $insert->columns[] = $this->columnName();
                        } while ($this->acceptOp(','));
                    }
                    $this->expectOp(')');
                }
            }
            if ($insert->select === null) {
                if ($this->acceptWord('VALUES') || $this->acceptWord('VALUE')) {
                    do {
                        $rowPos = $this->t[$this->i]->pos;
                        $this->expectOp('(');
                        $row = [];
                        if (!$this->isOp(')')) {
                            do {
                                $row[] = $this->valueOrDefault();
                            } while ($this->acceptOp(','));
                        }
                        $this->expectOp(')');
                        if ($insert->columns !== [] && count($row) !== count($insert->columns)) {
                            $this->failAt($rowPos, sprintf(
                                'a row of %d values for %d columns',
                                count($row),
                                count($insert->columns)
                            ));
                        }
                        $insert->rows[] = $row;
                    } while ($this->acceptOp(','));
                } elseif ($this->isWord('SELECT') || $this->isOp('(')) {
                    $insert->select = $this->selectStatement();
                } else {
                    $this->fail('expected VALUES, SET or SELECT');
                }
            }
        }
        if ($this->isWord('AS')) {
            $this->fail('a row alias (INSERT ... AS name) is not supported');
        }
        if ($this->isWord('ON')) {
            if ($verbTok->upper === 'REPLACE') {
                $this->fail('REPLACE has no ON DUPLICATE KEY UPDATE');
            }
            $this->i++;
            $this->expectWord('DUPLICATE');
            $this->expectWord('KEY');
            $this->expectWord('UPDATE');
            do {
                $column = $this->columnName();
                $this->expectAssign();
                $insert->onDuplicate[] = [$column, $this->valueOrDefault()];
            } while ($this->acceptOp(','));
        }
        return $insert;
    }

    /** A column name in INSERT lists and SET: `col` or `t.col` (the table part dropped only when plain). */
    private function columnName(): string
    {
        $name = $this->identifier();
        if ($this->acceptOp('.')) {
            $this->fail('a qualified column name is not supported here');
        }
        return $name;
    }

    private function expectAssign(): void
    {
        if (!$this->acceptOp('=') && !$this->acceptOp(':=')) {
            $this->fail('expected "="');
        }
    }

    private function valueOrDefault(): Expr
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && $tok->upper === 'DEFAULT' && !$this->isOpAt($this->i + 1, '(')) {
            $this->i++;
            return new Ast\DefaultValue($tok->pos);
        }
        return $this->expr();
    }

    // ------------------------------------------------------------ UPDATE / DELETE

    private function updateStatement(): Ast\Update
    {
        $pos = $this->expectWord('UPDATE')->pos;
        $ignore = false;
        while (true) {
            if ($this->acceptWord('LOW_PRIORITY')) {
                continue;
            }
            if ($this->acceptWord('IGNORE')) {
                $ignore = true;
                continue;
            }
            break;
        }
        $tables = $this->tableReferences();
        $this->expectWord('SET');
        $set = [];
        do {
            $colPos = $this->t[$this->i]->pos;
            $first = $this->identifier();
            $column = new Ast\ColumnRef(null, $first, $colPos);
            if ($this->acceptOp('.')) {
                $column = new Ast\ColumnRef($first, $this->anyIdentifier(), $colPos);
            }
            $this->expectAssign();
            $set[] = [$column, $this->valueOrDefault()];
        } while ($this->acceptOp(','));
        $update = new Ast\Update($tables, $set, ignore: $ignore, pos: $pos);
        if ($this->acceptWord('WHERE')) {
            $update->where = $this->expr();
        }
        if ($this->isWord('ORDER')) {
            $update->orderBy = $this->orderBy();
        }
        if ($this->isWord('LIMIT')) {
            [$update->limit] = $this->limit(false);
        }
        if ((count($tables) > 1 || !$tables[0] instanceof Ast\TableName)
            && ($update->orderBy !== [] || $update->limit !== null)) {
            $this->fail('ORDER BY / LIMIT in a multi-table UPDATE');
        }
        return $update;
    }

    private function deleteStatement(): Ast\Delete
    {
        $pos = $this->expectWord('DELETE')->pos;
        $ignore = false;
        while (true) {
            if ($this->acceptWord('LOW_PRIORITY') || $this->acceptWord('QUICK')) {
                continue;
            }
            if ($this->acceptWord('IGNORE')) {
                $ignore = true;
                continue;
            }
            break;
        }
        $delete = new Ast\Delete([], [], pos: $pos, ignore: $ignore);
        if ($this->acceptWord('FROM')) {
            $first = $this->tableFactorOrTarget();
            if ($this->isOp(',') || $this->isWord('USING')) {
                // DELETE FROM t1, t2 USING <references> WHERE ...
                $delete->targets[] = $first;
                while ($this->acceptOp(',')) {
                    $delete->targets[] = $this->deleteTarget();
                }
                $this->expectWord('USING');
                $delete->from = $this->tableReferences();
            } else {
                // single table: DELETE FROM t [[AS] a] WHERE ... ORDER BY ... LIMIT
                $this->i = $this->singleDeleteStart;
                $table = $this->tableFactor();
                if (!$table instanceof Ast\TableName) {
                    $this->fail('expected a table name');
                }
                $delete->from = [$table];
            }
        } else {
            do {
                $delete->targets[] = $this->deleteTarget();
            } while ($this->acceptOp(','));
            $this->expectWord('FROM');
            $delete->from = $this->tableReferences();
        }
        if ($this->acceptWord('WHERE')) {
            $delete->where = $this->expr();
        }
        $multi = $delete->targets !== [];
        if ($this->isWord('ORDER')) {
            if ($multi) {
                $this->fail('ORDER BY in a multi-table DELETE');
            }
            $delete->orderBy = $this->orderBy();
        }
        if ($this->isWord('LIMIT')) {
            if ($multi) {
                $this->fail('LIMIT in a multi-table DELETE');
            }
            [$delete->limit] = $this->limit(false);
        }
        return $delete;
    }

    private int $singleDeleteStart = 0;

    /** After DELETE FROM: read one target name, remembering where it started. */
    private function tableFactorOrTarget(): string
    {
        $this->singleDeleteStart = $this->i;
        return $this->deleteTarget();
    }

    /** A multi-table DELETE target: name, alias, name.* or db.name */
    private function deleteTarget(): string
    {
        $name = $this->identifier();
        if ($this->acceptOp('.')) {
            if ($this->acceptOp('*')) {
                return $name;
            }
            $this->fail('a database-qualified DELETE target is not supported');
        }
        return $name;
    }

    // ------------------------------------------------------------ CREATE / ALTER / DROP

    private function createStatement(): Ast\Statement
    {
        $pos = $this->expectWord('CREATE')->pos;
        $temporary = $this->acceptWord('TEMPORARY');
        if (
            !$temporary
            && (
                $this->isWord('UNIQUE') || $this->isWord('FULLTEXT') || $this->isWord('SPATIAL')
                || $this->isWord('INDEX')
            )
        ) {
            return $this->createIndex($pos);
        }
        if (!$this->acceptWord('TABLE')) {
            $this->fail('only CREATE TABLE and CREATE INDEX are supported');
        }
        $ifNotExists = false;
        if ($this->acceptWord('IF')) {
            $this->expectWord('NOT');
            $this->expectWord('EXISTS');
            $ifNotExists = true;
        }
        $name = $this->tableIdent('CREATE TABLE');
        if ($this->isWord('LIKE') || $this->isWord('AS') || $this->isWord('SELECT')) {
            $this->fail('CREATE TABLE ... LIKE / AS SELECT is not supported');
        }
        $create = new Ast\CreateTable($name, $ifNotExists, pos: $pos, temporary: $temporary);
        $this->expectOp('(');
        do {
            $index = $this->indexDefinition(false);
            if ($index !== null) {
                $create->indexes[] = $index;
            } else {
                $create->columns[] = $this->columnDefinition($this->identifier());
            }
        } while ($this->acceptOp(','));
        $this->expectOp(')');
        $create->options = $this->tableOptions();
        return $create;
    }

    /** CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX name ON t (parts): the ALTER TABLE ADD INDEX it means. */
    private function createIndex(int $pos): Ast\AlterTable
    {
        $kindPos = $this->t[$this->i]->pos;
        $kind = 'INDEX';
        foreach (['UNIQUE', 'FULLTEXT', 'SPATIAL'] as $k) {
            if ($this->acceptWord($k)) {
                $kind = $k;
            }
        }
        $this->expectWord('INDEX');
        $name = $this->identifier();
        $this->expectWord('ON');
        $table = $this->tableIdent('CREATE INDEX');
        $index = new Ast\IndexDef($kind, $name, $this->keyParts(), $kindPos);
        $this->indexOptions($index);
        return new Ast\AlterTable($table, [new Ast\AlterAction('ADD INDEX', index: $index, pos: $kindPos)], $pos);
    }

    /**
     * An index in CREATE TABLE or after ALTER TABLE ADD: PRIMARY KEY (...), [UNIQUE|FULLTEXT|
     * SPATIAL] {KEY|INDEX} [name] (...). Null (nothing consumed) when the next thing is not one.
     */
    private function indexDefinition(bool $afterAdd): ?Ast\IndexDef
    {
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::WORD) {
            return null;
        }
        if ($tok->upper === 'CONSTRAINT') {
            $this->i++;
            if (!$this->isWord('PRIMARY') && !$this->isWord('UNIQUE')) {
                $this->identifier();
            }
            if (!$this->isWord('PRIMARY') && !$this->isWord('UNIQUE')) {
                $this->fail('only PRIMARY KEY and UNIQUE constraints are supported');
            }
            $tok = $this->t[$this->i];
        }
        switch ($tok->upper) {
            case 'PRIMARY':
                $this->i++;
                $this->expectWord('KEY');
                $index = new Ast\IndexDef('PRIMARY', null, [], $tok->pos);
                break;
            case 'UNIQUE':
            case 'FULLTEXT':
            case 'SPATIAL':
                $this->i++;
                if (!$this->acceptWord('KEY')) {
                    $this->acceptWord('INDEX');
                }
                $index = new Ast\IndexDef($tok->upper, null, [], $tok->pos);
                break;
            case 'KEY':
            case 'INDEX':
                $this->i++;
                $index = new Ast\IndexDef('INDEX', null, [], $tok->pos);
                break;
            case 'FOREIGN':
            case 'CHECK':
                $this->fail($tok->upper . ' constraints are not supported');
                // no break
            default:
                return null;
        }
        if (!$this->isOp('(') && !$this->isWord('USING')) {
            $index->name = $this->identifier();
        }
        if ($this->acceptWord('USING')) {
            $index->using = $this->indexType();
        }
        $index->columns = $this->keyParts();
        $this->indexOptions($index);
        return $index;
    }

    private function indexType(): string
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && ($tok->upper === 'BTREE' || $tok->upper === 'HASH')) {
            $this->i++;
            return $tok->upper;
        }
        $this->fail('expected BTREE or HASH after USING');
    }

    private function indexOptions(Ast\IndexDef $index): void
    {
        while (true) {
            if ($this->acceptWord('USING')) {
                $index->using = $this->indexType();
            } elseif ($this->acceptWord('COMMENT')) {
                $index->comment = $this->stringValue();
            } else {
                return;
            }
        }
    }

    /** @return array<int, array{name: string, length: ?int, desc: bool}> */
    private function keyParts(): array
    {
        $this->expectOp('(');
        $parts = [];
        do {
            if ($this->isOp('(')) {
                $this->fail('functional key parts are not supported');
            }
            $name = $this->identifier();
            $length = null;
            if ($this->acceptOp('(')) {
                $length = $this->integer();
                $this->expectOp(')');
            }
            $desc = false;
            if ($this->acceptWord('DESC')) {
                $desc = true;
            } else {
                $this->acceptWord('ASC');
            }
            $parts[] = ['name' => $name, 'length' => $length, 'desc' => $desc];
        } while ($this->acceptOp(','));
        $this->expectOp(')');
        return $parts;
    }

    private function columnDefinition(string $name): Ast\ColumnDef
    {
        $pos = $this->t[$this->i - 1]->pos;
        $typeTok = $this->t[$this->i];
        if ($typeTok->type !== Token::WORD) {
            $this->fail('expected a column type');
        }
        $type = strtolower($typeTok->value);
        if (!isset(self::COLUMN_TYPES[$type])) {
            $this->fail('unknown column type ' . $typeTok->value);
        }
        $this->i++;
        if ($type === 'double') {
            $this->acceptWord('PRECISION');
        }
        $col = new Ast\ColumnDef($name, $type, pos: $pos);
        if ($type === 'enum' || $type === 'set') {
            $this->expectOp('(');
            $col->values = [];
            do {
                $col->values[] = $this->stringValue();
            } while ($this->acceptOp(','));
            $this->expectOp(')');
        } elseif ($this->acceptOp('(')) {
            $col->length = $this->integer();
            if ($this->acceptOp(',')) {
                $col->scale = $this->integer();
            }
            $this->expectOp(')');
        }
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type !== Token::WORD) {
                break;
            }
            $this->i++;
            switch ($tok->upper) {
                case 'UNSIGNED':
                    $col->unsigned = true;
                    break;
                case 'SIGNED':
                    break;
                case 'ZEROFILL':
                    $col->zerofill = true;
                    $col->unsigned = true;
                    break;
                case 'CHARACTER':
                    $this->expectWord('SET');
                    $col->charset = $this->nameValue();
                    break;
                case 'CHARSET':
                    $col->charset = $this->nameValue();
                    break;
                case 'COLLATE':
                    $col->collation = $this->nameValue();
                    break;
                case 'NOT':
                    $this->expectWord('NULL');
                    $col->nullable = false;
                    break;
                case 'NULL':
                    $col->nullable = true;
                    break;
                case 'DEFAULT':
                    $col->default = $this->defaultValue();
                    break;
                case 'AUTO_INCREMENT':
                    $col->autoIncrement = true;
                    break;
                case 'UNIQUE':
                    $this->acceptWord('KEY');
                    $col->unique = true;
                    break;
                case 'PRIMARY':
                    $this->expectWord('KEY');
                    $col->primaryKey = true;
                    break;
                case 'KEY':
                    $col->primaryKey = true;
                    break;
                case 'COMMENT':
                    $col->comment = $this->stringValue();
                    break;
                case 'ON':
                    $this->expectWord('UPDATE');
                    $col->onUpdate = $this->defaultValue();
                    break;
                default:
                    $this->i--;
                    if (isset(self::REFUSED_COLUMN_ATTRIBUTES[$tok->upper])) {
                        $this->fail('column attribute ' . $tok->upper . ' is not supported');
                    }
                    break 2;
            }
        }
        return $col;
    }

    /** DEFAULT / ON UPDATE values: a literal, a signed number, CURRENT_TIMESTAMP[(n)] or (expr). */
    private function defaultValue(): Expr
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::OP && $tok->value === '(') {
            $this->i++;
            $expr = $this->expr();
            $this->expectOp(')');
            return $expr;
        }
        if ($tok->type === Token::WORD && !isset(self::NILADIC[$tok->upper])
            && !in_array($tok->upper, ['NULL', 'TRUE', 'FALSE', 'NOW'], true)) {
            $this->fail('unexpected ' . $this->describe($tok) . ' as a default value');
        }
        return $this->unary();
    }

    /** @return array<string, string> */
    private function tableOptions(): array
    {
        $options = [];
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type !== Token::WORD) {
                break;
            }
            $this->i++;
            $key = $tok->upper;
            if ($key === 'DEFAULT') {
                $tok = $this->t[$this->i++];
                $key = $tok->upper;
                if ($tok->type !== Token::WORD || !in_array($key, ['CHARSET', 'CHARACTER', 'COLLATE'], true)) {
                    $this->i--;
                    $this->fail('expected CHARSET or COLLATE after DEFAULT');
                }
            }
            if ($key === 'CHARACTER') {
                $this->expectWord('SET');
                $key = 'CHARSET';
            }
            switch ($key) {
                case 'CHARSET':
                case 'COLLATE':
                case 'ENGINE':
                case 'ROW_FORMAT':
                    $this->acceptOp('=');
                    $options[$key] = $this->nameValue();
                    break;
                case 'AUTO_INCREMENT':
                case 'AVG_ROW_LENGTH':
                case 'MAX_ROWS':
                case 'MIN_ROWS':
                case 'KEY_BLOCK_SIZE':
                    $this->acceptOp('=');
                    $options[$key] = (string) $this->integer();
                    break;
                case 'COMMENT':
                    $this->acceptOp('=');
                    $options[$key] = $this->stringValue();
                    break;
                default:
                    $this->i--;
                    $this->fail('unknown table option ' . $tok->value);
            }
            $this->acceptOp(',');
        }
        return $options;
    }

    private function alterStatement(): Ast\AlterTable
    {
        $pos = $this->expectWord('ALTER')->pos;
        $this->acceptWord('IGNORE');
        if (!$this->acceptWord('TABLE')) {
            $this->fail('only ALTER TABLE is supported');
        }
        $table = $this->tableIdent('ALTER TABLE');
        $actions = [];
        do {
            $actions[] = $this->alterAction();
        } while ($this->acceptOp(','));
        return new Ast\AlterTable($table, $actions, $pos);
    }

    private function alterAction(): Ast\AlterAction
    {
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::WORD) {
            $this->fail('expected an ALTER TABLE action');
        }
        $pos = $tok->pos;
        switch ($tok->upper) {
            case 'ADD':
                $this->i++;
                if ($this->acceptWord('COLUMN')) {
                    if ($this->isOp('(')) {
                        $this->fail('ADD COLUMN (list) is not supported');
                    }
                    $column = $this->columnDefinition($this->identifier());
                    $action = new Ast\AlterAction('ADD COLUMN', $column, pos: $pos);
                    $this->columnPosition($action);
                    return $action;
                }
                $index = $this->indexDefinition(true);
                if ($index !== null) {
                    return new Ast\AlterAction('ADD INDEX', index: $index, pos: $pos);
                }
                if ($this->isOp('(')) {
                    $this->fail('ADD (column list) is not supported');
                }
                $action = new Ast\AlterAction('ADD COLUMN', $this->columnDefinition($this->identifier()), pos: $pos);
                $this->columnPosition($action);
                return $action;
            case 'DROP':
                $this->i++;
                if ($this->acceptWord('PRIMARY')) {
                    $this->expectWord('KEY');
                    return new Ast\AlterAction('DROP PRIMARY KEY', pos: $pos);
                }
                if ($this->acceptWord('INDEX') || $this->acceptWord('KEY')) {
                    return new Ast\AlterAction('DROP INDEX', name: $this->identifier(), pos: $pos);
                }
                if ($this->isWord('FOREIGN') || $this->isWord('CONSTRAINT') || $this->isWord('CHECK')) {
                    $this->fail('dropping constraints is not supported');
                }
                $this->acceptWord('COLUMN');
                return new Ast\AlterAction('DROP COLUMN', name: $this->identifier(), pos: $pos);
            case 'CHANGE':
                $this->i++;
                $this->acceptWord('COLUMN');
                $old = $this->identifier();
                $column = $this->columnDefinition($this->identifier());
                $action = new Ast\AlterAction('CHANGE COLUMN', $column, name: $old, pos: $pos);
                $this->columnPosition($action);
                return $action;
            case 'MODIFY':
                $this->i++;
                $this->acceptWord('COLUMN');
                $action = new Ast\AlterAction('MODIFY COLUMN', $this->columnDefinition($this->identifier()), pos: $pos);
                $this->columnPosition($action);
                return $action;
            case 'ALTER':
                $this->i++;
                $this->acceptWord('COLUMN');
                $name = $this->identifier();
                if ($this->acceptWord('SET')) {
                    $this->expectWord('DEFAULT');
                    $action = new Ast\AlterAction('ALTER COLUMN SET DEFAULT', name: $name, pos: $pos);
                    $action->default = $this->defaultValue();
                    return $action;
                }
                if ($this->acceptWord('DROP')) {
                    $this->expectWord('DEFAULT');
                    return new Ast\AlterAction('ALTER COLUMN DROP DEFAULT', name: $name, pos: $pos);
                }
                $this->fail('expected SET DEFAULT or DROP DEFAULT');
                // no break
            case 'RENAME':
                $this->i++;
                if ($this->isWord('COLUMN') || $this->isWord('INDEX') || $this->isWord('KEY')) {
                    $this->fail('RENAME COLUMN / INDEX is not supported');
                }
                if (!$this->acceptWord('TO')) {
                    $this->acceptWord('AS');
                }
                return new Ast\AlterAction('RENAME', name: $this->tableIdent('RENAME'), pos: $pos);
            case 'CONVERT':
                $this->i++;
                $this->expectWord('TO');
                if ($this->acceptWord('CHARACTER')) {
                    $this->expectWord('SET');
                } else {
                    $this->expectWord('CHARSET');
                }
                $options = ['CHARSET' => $this->nameValue()];
                if ($this->acceptWord('COLLATE')) {
                    $options['COLLATE'] = $this->nameValue();
                }
                return new Ast\AlterAction('CONVERT CHARSET', pos: $pos, options: $options);
            case 'ENGINE':
            case 'DEFAULT':
            case 'CHARSET':
            case 'CHARACTER':
            case 'COLLATE':
            case 'AUTO_INCREMENT':
            case 'COMMENT':
            case 'ROW_FORMAT':
                return new Ast\AlterAction('OPTION', pos: $pos, options: $this->tableOptions());
        }
        $this->fail('unsupported ALTER TABLE action ' . $tok->upper);
    }

    private function columnPosition(Ast\AlterAction $action): void
    {
        if ($this->acceptWord('FIRST')) {
            $action->first = true;
        } elseif ($this->acceptWord('AFTER')) {
            $action->after = $this->identifier();
        }
    }

    private function dropStatement(): Ast\Statement
    {
        $pos = $this->expectWord('DROP')->pos;
        if ($this->acceptWord('INDEX')) {
            $name = $this->identifier();
            $this->expectWord('ON');
            $table = $this->tableIdent('DROP INDEX');
            return new Ast\AlterTable($table, [new Ast\AlterAction('DROP INDEX', name: $name, pos: $pos)], $pos);
        }
        $temporary = $this->acceptWord('TEMPORARY');
        if (!$this->acceptWord('TABLE') && !$this->acceptWord('TABLES')) {
            $this->fail('only DROP TABLE and DROP INDEX are supported');
        }
        $ifExists = false;
        if ($this->acceptWord('IF')) {
            $this->expectWord('EXISTS');
            $ifExists = true;
        }
        $names = [];
        do {
            $names[] = $this->tableIdent('DROP TABLE');
        } while ($this->acceptOp(','));
        if (!$this->acceptWord('RESTRICT')) {
            $this->acceptWord('CASCADE');
        }
        return new Ast\DropTable($names, $ifExists, $pos, $temporary);
    }

    // ------------------------------------------------------------ SHOW / DESCRIBE / SET ...

    private function showStatement(): Ast\Show
    {
        $pos = $this->expectWord('SHOW')->pos;
        $full = $this->acceptWord('FULL');
        $global = false;
        if ($this->acceptWord('GLOBAL')) {
            $global = true;
        } elseif (!$this->acceptWord('SESSION')) {
            $this->acceptWord('LOCAL');
        }
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::WORD) {
            $this->fail('expected what to SHOW');
        }
        $this->i++;
        $show = new Ast\Show('', pos: $pos, global: $global);
        $filter = false;
        switch ($tok->upper) {
            case 'TABLES':
                $show->what = $full ? 'FULL TABLES' : 'TABLES';
                $show->database = $this->fromDatabase();
                $filter = true;
                break;
            case 'COLUMNS':
            case 'FIELDS':
                $show->what = $full ? 'FULL COLUMNS' : 'COLUMNS';
                $this->fromTable($show);
                $filter = true;
                break;
            case 'INDEX':
            case 'INDEXES':
            case 'KEYS':
                $show->what = 'INDEX';
                $this->fromTable($show);
                if ($this->acceptWord('WHERE')) {
                    $show->where = $this->expr();
                }
                break;
            case 'VARIABLES':
            case 'STATUS':
                $show->what = $tok->upper;
                $filter = true;
                break;
            case 'TABLE':
                $this->expectWord('STATUS');
                $show->what = 'TABLE STATUS';
                $show->database = $this->fromDatabase();
                $filter = true;
                break;
            case 'CREATE':
                $this->expectWord('TABLE');
                $show->what = 'CREATE TABLE';
                [$show->database, $show->table] = $this->qualifiedName();
                break;
            case 'GRANTS':
                $show->what = 'GRANTS';
                if ($this->acceptWord('FOR')) {
                    $this->expectWord('CURRENT_USER');
                    if ($this->acceptOp('(')) {
                        $this->expectOp(')');
                    }
                }
                break;
            case 'DATABASES':
            case 'SCHEMAS':
                $show->what = 'DATABASES';
                $filter = true;
                break;
            case 'COLLATION':
                $show->what = 'COLLATION';
                $filter = true;
                break;
            case 'CHARACTER':
                $this->expectWord('SET');
                $show->what = 'CHARACTER SET';
                $filter = true;
                break;
            case 'CHARSET':
                $show->what = 'CHARACTER SET';
                $filter = true;
                break;
            case 'ENGINES':
            case 'WARNINGS':
            case 'ERRORS':
                $show->what = $tok->upper;
                break;
            case 'PROCESSLIST':
                $show->what = $full ? 'FULL PROCESSLIST' : 'PROCESSLIST';
                break;
            default:
                $this->i--;
                $this->fail('unsupported SHOW ' . $tok->upper);
        }
        if ($full && !in_array($show->what, ['FULL TABLES', 'FULL COLUMNS', 'FULL PROCESSLIST'], true)) {
            $this->fail('FULL is not allowed with SHOW ' . $show->what);
        }
        if ($global && !in_array($show->what, ['VARIABLES', 'STATUS'], true)) {
            $this->fail('GLOBAL is only allowed with SHOW VARIABLES and SHOW STATUS');
        }
        if ($filter) {
            if ($this->acceptWord('LIKE')) {
                $show->like = $this->stringValue();
            } elseif ($this->acceptWord('WHERE')) {
                $show->where = $this->expr();
            }
        }
        return $show;
    }

    private function fromDatabase(): ?string
    {
        if ($this->acceptWord('FROM') || $this->acceptWord('IN')) {
            return $this->identifier();
        }
        return null;
    }

    private function fromTable(Ast\Show $show): void
    {
        if (!$this->acceptWord('FROM') && !$this->acceptWord('IN')) {
            $this->fail('expected FROM <table>');
        }
        [$show->database, $show->table] = $this->qualifiedName();
        $db = $this->fromDatabase();
        if ($db !== null) {
            $show->database = $db;
        }
    }

    private function describeStatement(): Ast\Describe
    {
        $pos = $this->t[$this->i++]->pos;
        $tok = $this->t[$this->i];
        $explained = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'EXTENDED', 'PARTITIONS', 'FORMAT', 'ANALYZE'];
        if ($tok->type === Token::WORD && in_array($tok->upper, $explained, true)) {
            $this->fail('EXPLAIN of a statement is not supported');
        }
        $table = $this->tableIdent('DESCRIBE');
        $column = null;
        $tok = $this->t[$this->i];
        if ($tok->type === Token::STRING) {
            $this->i++;
            $column = $tok->value;
        } elseif (
            $tok->type === Token::QUOTED_IDENT
            || ($tok->type === Token::WORD && !isset(self::RESERVED[$tok->upper]))
        ) {
            $this->i++;
            $column = $tok->value;
        }
        return new Ast\Describe($table, $column, $pos);
    }

    private function setStatement(): Ast\Set
    {
        $pos = $this->expectWord('SET')->pos;
        $set = new Ast\Set(pos: $pos);
        if ($this->acceptWord('NAMES')) {
            $set->names = $this->nameValue();
            if ($this->acceptWord('COLLATE')) {
                $set->collate = $this->nameValue();
            }
            return $set;
        }
        if ($this->isWord('CHARSET') || ($this->isWord('CHARACTER') && $this->isWordAt($this->i + 1, 'SET'))) {
            $this->i += $this->isWord('CHARSET') ? 1 : 2;
            $set->names = $this->nameValue();
            return $set;
        }
        if ($this->isWord('TRANSACTION') || $this->isWordAt($this->i + 1, 'TRANSACTION')) {
            $this->fail('SET TRANSACTION is not supported');
        }
        $scope = null;
        do {
            $varPos = $this->t[$this->i]->pos;
            foreach (['GLOBAL' => 'GLOBAL', 'SESSION' => 'SESSION', 'LOCAL' => 'SESSION'] as $word => $s) {
                if ($this->acceptWord($word)) {
                    $scope = $s;
                }
            }
            if ($this->isWord('PERSIST') || $this->isWord('PERSIST_ONLY')) {
                $this->fail('SET PERSIST is not supported');
            }
            $tok = $this->t[$this->i];
            if ($tok->type === Token::USER_VAR) {
                $this->i++;
                $var = new Ast\Variable($tok->value, false, null, $varPos);
            } elseif ($tok->type === Token::SYSTEM_VAR) {
                $this->i++;
                $var = $this->systemVariable($tok);
                $var->pos = $varPos;
            } elseif ($tok->type === Token::WORD && !isset(self::RESERVED[$tok->upper])) {
                $this->i++;
                $var = new Ast\Variable($tok->value, true, $scope, $varPos);
            } else {
                $this->fail('expected a variable to SET');
            }
            $this->expectAssign();
            $value = $this->t[$this->i];
            if ($value->type === Token::WORD && in_array($value->upper, ['ON', 'OFF', 'ALL'], true)
                && $this->isSetValueEnd($this->i + 1)) {
                $this->i++;
                $expr = new Ast\Literal('string', $value->upper, $value->pos);
            } else {
                $expr = $this->valueOrDefault();
            }
            $set->assignments[] = [$var, $expr];
        } while ($this->acceptOp(','));
        return $set;
    }

    private function isSetValueEnd(int $at): bool
    {
        $tok = $this->t[$at];
        return $tok->type === Token::END || ($tok->type === Token::OP && ($tok->value === ',' || $tok->value === ';'));
    }

    private function transactionStatement(): Ast\Transaction
    {
        $tok = $this->t[$this->i++];
        $pos = $tok->pos;
        switch ($tok->upper) {
            case 'START':
                $this->expectWord('TRANSACTION');
                if (!$this->isSetValueEnd($this->i)) {
                    $this->fail('START TRANSACTION options are not supported');
                }
                return new Ast\Transaction('BEGIN', null, $pos);
            case 'BEGIN':
                $this->acceptWord('WORK');
                return new Ast\Transaction('BEGIN', null, $pos);
            case 'COMMIT':
                $this->acceptWord('WORK');
                return new Ast\Transaction('COMMIT', null, $pos);
            case 'ROLLBACK':
                $this->acceptWord('WORK');
                if ($this->acceptWord('TO')) {
                    $this->acceptWord('SAVEPOINT');
                    return new Ast\Transaction('ROLLBACK TO', $this->identifier(), $pos);
                }
                return new Ast\Transaction('ROLLBACK', null, $pos);
            case 'SAVEPOINT':
                return new Ast\Transaction('SAVEPOINT', $this->identifier(), $pos);
            default: // RELEASE
                $this->expectWord('SAVEPOINT');
                return new Ast\Transaction('RELEASE', $this->identifier(), $pos);
        }
    }

    private function lockStatement(): Ast\LockTables
    {
        $tok = $this->t[$this->i++];
        if (!$this->acceptWord('TABLES') && !$this->acceptWord('TABLE')) {
            $this->fail('expected TABLES after ' . $tok->upper);
        }
        if ($tok->upper === 'UNLOCK') {
            return new Ast\LockTables(true, [], $tok->pos);
        }
        $tables = [];
        do {
            $table = $this->tableIdent('LOCK TABLES');
            $alias = $this->alias(false);
            if ($this->acceptWord('READ')) {
                $mode = $this->acceptWord('LOCAL') ? 'READ LOCAL' : 'READ';
            } elseif ($this->acceptWord('LOW_PRIORITY')) {
                $this->expectWord('WRITE');
                $mode = 'LOW_PRIORITY WRITE';
            } else {
                $this->expectWord('WRITE');
                $mode = 'WRITE';
            }
            $tables[] = ['table' => $table, 'alias' => $alias, 'mode' => $mode];
        } while ($this->acceptOp(','));
        return new Ast\LockTables(false, $tables, $tok->pos);
    }

    private function maintenanceStatement(): Ast\TableMaintenance
    {
        $tok = $this->t[$this->i++];
        if (!$this->acceptWord('NO_WRITE_TO_BINLOG')) {
            $this->acceptWord('LOCAL');
        }
        if (!$this->acceptWord('TABLE') && !$this->acceptWord('TABLES')) {
            $this->fail('expected TABLE after ' . $tok->upper);
        }
        $tables = [];
        do {
            $tables[] = $this->tableIdent($tok->upper . ' TABLE');
        } while ($this->acceptOp(','));
        return new Ast\TableMaintenance($tok->upper, $tables, $tok->pos);
    }

    // ------------------------------------------------------------ expressions

    /** expr: OR / || (lowest), then XOR, AND / &&, NOT, then boolPrimary. */
    private function expr(): Expr
    {
        // Fast path: a lone literal or column followed by something no operator level takes
        // (",", ")", a keyword such as FROM or AS, the end) is the whole expression. Most
        // expressions WordPress writes are such (value lists, select lists, ORDER BY ...).
        $after = $this->leafEnd();
        if ($after > 0) {
            $next = $this->t[$after];
            if ($next->type === Token::OP
                ? ($next->value === ',' || $next->value === ')' || $next->value === ';')
                : ($next->type !== Token::WORD || !isset(self::OPERATOR_WORDS[$next->upper]))) {
                return $this->leaf($after);
            }
        }
        // Nesting (parentheses, subqueries, function arguments) comes back here: bound it so a
        // hostile statement cannot exhaust PHP's stack.
        if (++$this->depth > self::MAX_DEPTH) {
            $this->fail('expressions nested more than ' . self::MAX_DEPTH . ' deep');
        }
        $left = $this->xorExpr();
        while (true) {
            $tok = $this->t[$this->i];
            if (
                ($tok->type === Token::WORD && $tok->upper === 'OR')
                || ($tok->type === Token::OP && $tok->value === '||')
            ) {
                $this->i++;
                $left = new Ast\Binary('OR', $left, $this->xorExpr(), $left->pos);
                continue;
            }
            $this->depth--;
            return $left;
        }
    }

    private function xorExpr(): Expr
    {
        $left = $this->andExpr();
        while ($this->isWord('XOR')) {
            $this->i++;
            $left = new Ast\Binary('XOR', $left, $this->andExpr(), $left->pos);
        }
        return $left;
    }

    private function andExpr(): Expr
    {
        $left = $this->notExpr();
        while (true) {
            $tok = $this->t[$this->i];
            if (
                ($tok->type === Token::WORD && $tok->upper === 'AND')
                || ($tok->type === Token::OP && $tok->value === '&&')
            ) {
                $this->i++;
                $left = new Ast\Binary('AND', $left, $this->notExpr(), $left->pos);
                continue;
            }
            return $left;
        }
    }

    private function notExpr(): Expr
    {
        $nots = [];
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type !== Token::WORD || $tok->upper !== 'NOT') {
                break;
            }
            $next = $this->t[$this->i + 1];
            // NOT EXISTS is a primary; a plain NOT negates the whole comparison after it.
            if ($next->type === Token::WORD && $next->upper === 'EXISTS') {
                break;
            }
            $this->i++;
            $nots[] = $tok->pos;
        }
        $expr = $this->boolPrimary();
        for ($k = count($nots) - 1; $k >= 0; $k--) {
            $expr = new Ast\Unary('NOT', $expr, $nots[$k]);
        }
        return $expr;
    }

    /** Comparisons and IS tests, left-associative over predicates. */
    private function boolPrimary(): Expr
    {
        $left = $this->predicate();
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type === Token::OP && isset(self::COMPARISONS[$tok->value])) {
                $this->i++;
                $next = $this->t[$this->i];
                if (
                    $next->type === Token::WORD
                    && ($next->upper === 'ANY' || $next->upper === 'ALL' || $next->upper === 'SOME')
                    && $this->isOpAt($this->i + 1, '(')
                ) {
                    $this->fail('comparisons with ' . $next->upper . ' (subquery) are not supported');
                }
                $left = new Ast\Binary(self::COMPARISONS[$tok->value], $left, $this->predicate(), $left->pos);
                continue;
            }
            if ($tok->type === Token::WORD && $tok->upper === 'IS') {
                $this->i++;
                $not = $this->acceptWord('NOT');
                $what = $this->t[$this->i];
                if (
                    $what->type !== Token::WORD
                    || !in_array($what->upper, ['NULL', 'TRUE', 'FALSE', 'UNKNOWN'], true)
                ) {
                    $this->fail('expected NULL, TRUE, FALSE or UNKNOWN after IS');
                }
                $this->i++;
                $left = new Ast\IsTest($left, $what->upper, $not, $left->pos);
                continue;
            }
            return $left;
        }
    }

    /** [NOT] IN / BETWEEN / LIKE / REGEXP after a bit expression. */
    private function predicate(): Expr
    {
        $left = $this->bitExpr(1);
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::WORD) {
            return $left;
        }
        $not = false;
        $word = $tok->upper;
        if ($word === 'NOT') {
            $not = true;
            $tok = $this->t[$this->i + 1];
            $word = $tok->type === Token::WORD ? $tok->upper : '';
            if (!in_array($word, ['IN', 'BETWEEN', 'LIKE', 'REGEXP', 'RLIKE'], true)) {
                $this->fail('expected IN, BETWEEN, LIKE or REGEXP after NOT');
            }
            $this->i++;
        }
        switch ($word) {
            case 'IN':
                $this->i++;
                $this->expectOp('(');
                $next = $this->t[$this->i];
                if ($next->type === Token::WORD && $next->upper === 'SELECT') {
                    $query = $this->selectStatement();
                    $this->expectOp(')');
                    return new Ast\In($left, [], $query, $not, $left->pos);
                }
                if ($this->isOp(')')) {
                    $this->fail('an empty IN () list');
                }
                $list = [];
                do {
                    $list[] = $this->expr();
                } while ($this->acceptOp(','));
                $this->expectOp(')');
                return new Ast\In($left, $list, null, $not, $left->pos);
            case 'BETWEEN':
                $this->i++;
                $low = $this->bitExpr(1);
                $this->expectWord('AND');
                $high = $this->predicate();
                return new Ast\Between($left, $low, $high, $not, $left->pos);
            case 'LIKE':
                $this->i++;
                $pattern = $this->bitExpr(1);
                $escape = null;
                if ($this->acceptWord('ESCAPE')) {
                    $escape = $this->bitExpr(1);
                }
                return new Ast\Like($left, $pattern, $escape, $not, $left->pos);
            case 'REGEXP':
            case 'RLIKE':
                $this->i++;
                return new Ast\Regexp($left, $this->bitExpr(1), $not, $left->pos);
            case 'SOUNDS':
                $this->fail('SOUNDS LIKE is not supported');
                // no break
            case 'MEMBER':
                $this->fail('MEMBER OF is not supported');
        }
        return $left;
    }

    /** | & << >> + - * / DIV % MOD ^ by precedence climbing. */
    private function bitExpr(int $min): Expr
    {
        // Fast path: a literal or column not followed by a bit operator or COLLATE (the common
        // operand of a comparison) needs neither unary() nor primary().
        $after = $this->leafEnd();
        if ($after > 0) {
            $next = $this->t[$after];
            if (
                $next->type === Token::OP
                ? !isset(self::BIT_OPS[$next->value])
                : ($next->type !== Token::WORD || !isset(self::AFTER_OPERAND_WORDS[$next->upper]))
            ) {
                $left = $this->leaf($after);
            } else {
                $left = $this->unary();
            }
        } else {
            $left = $this->unary();
        }
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type === Token::OP) {
                $op = $tok->value;
            } elseif ($tok->type === Token::WORD && ($tok->upper === 'DIV' || $tok->upper === 'MOD')) {
                $op = $tok->upper;
            } else {
                return $left;
            }
            $prec = self::BIT_OPS[$op] ?? 0;
            if ($prec < $min || $prec === 0) {
                return $left;
            }
            $this->i++;
            $right = $this->bitExpr($prec + 1);
            $left = new Ast\Binary($op === 'MOD' ? '%' : $op, $left, $right, $left->pos);
        }
    }

    /**
     * Where a plain leaf starting at the current token ends (the index of the token after it),
     * or 0: a string or number literal, or a column `c` / `t.c` that is not a function call or
     * anything else primary() treats specially.
     */
    private function leafEnd(): int
    {
        $i = $this->i;
        $tok = $this->t[$i];
        $type = $tok->type;
        if ($type === Token::STRING || $type === Token::NUMBER) {
            return $i + 1;
        }
        if ($type === Token::WORD) {
            if (isset(self::RESERVED[$tok->upper])) {
                return 0;
            }
        } elseif ($type !== Token::QUOTED_IDENT) {
            return 0;
        }
        $next = $this->t[$i + 1];
        if ($next->type === Token::OP) {
            if ($next->value === '(') {
                return 0;   // a function call
            }
            if ($next->value === '.') {
                $column = $this->t[$i + 2];
                if ($column->type !== Token::WORD && $column->type !== Token::QUOTED_IDENT) {
                    return 0;   // t.*
                }
                $after = $this->t[$i + 3];
                return $after->type === Token::OP && $after->value === '.' ? 0 : $i + 3;
            }
        } elseif ($next->type === Token::STRING) {
            return 0;   // DATE '...', _charset'...'
        }
        return $i + 1;
    }

    /** Builds the leaf leafEnd() found and moves past it. */
    private function leaf(int $after): Expr
    {
        $tok = $this->t[$this->i];
        $this->i = $after;
        if ($tok->type === Token::STRING) {
            return new Ast\Literal('string', $tok->value, $tok->pos);
        }
        if ($tok->type === Token::NUMBER) {
            return new Ast\Literal('number', $tok->value, $tok->pos);
        }
        return $this->t[$after - 1] === $tok
            ? new Ast\ColumnRef(null, $tok->value, $tok->pos)
            : new Ast\ColumnRef($tok->value, $this->t[$after - 1]->value, $tok->pos);
    }

    /** Unary - + ~ ! and BINARY, then a primary with its COLLATE. */
    private function unary(): Expr
    {
        $ops = [];
        while (true) {
            $tok = $this->t[$this->i];
            if ($tok->type === Token::OP) {
                $v = $tok->value;
                if ($v !== '-' && $v !== '+' && $v !== '~' && $v !== '!') {
                    break;
                }
            } elseif ($tok->type === Token::WORD && $tok->upper === 'BINARY' && !$this->isOpAt($this->i + 1, '(')) {
                $v = 'BINARY';
            } else {
                break;
            }
            $this->i++;
            $ops[] = $tok;
        }
        $expr = $this->primary();
        while ($this->isWord('COLLATE')) {
            $this->i++;
            $expr = new Ast\Collate($expr, $this->nameValue(), $expr->pos);
        }
        for ($k = count($ops) - 1; $k >= 0; $k--) {
            $op = $ops[$k];
            $expr = new Ast\Unary($op->type === Token::OP ? $op->value : 'BINARY', $expr, $op->pos);
        }
        return $expr;
    }

    private function primary(): Expr
    {
        $tok = $this->t[$this->i];
        switch ($tok->type) {
            case Token::STRING:
                $this->i++;
                return new Ast\Literal('string', $tok->value, $tok->pos);
            case Token::NUMBER:
                $this->i++;
                return new Ast\Literal('number', $tok->value, $tok->pos);
            case Token::HEX:
                $this->i++;
                return new Ast\Literal('hex', $tok->value, $tok->pos);
            case Token::USER_VAR:
                $this->i++;
                if ($this->isOp(':=')) {
                    $this->fail('assigning a user variable inside an expression is not supported');
                }
                return new Ast\Variable($tok->value, false, null, $tok->pos);
            case Token::SYSTEM_VAR:
                $this->i++;
                return $this->systemVariable($tok);
            case Token::QUOTED_IDENT:
                return $this->columnRef();
            case Token::OP:
                if ($tok->value === '(') {
                    return $this->parenthesised();
                }
                if ($tok->value === '*') {
                    $this->fail('"*" is only allowed as a select item or in COUNT(*)');
                }
                $this->fail('unexpected ' . $this->describe($tok));
                // no break
            case Token::END:
                $this->fail('the statement ends where an expression was expected');
        }
        // a word
        $upper = $tok->upper;
        $next = $this->t[$this->i + 1];
        $call = $next->type === Token::OP && $next->value === '(';
        switch ($upper) {
            case 'NULL':
                $this->i++;
                return new Ast\Literal('null', '', $tok->pos);
            case 'TRUE':
                $this->i++;
                return new Ast\Literal('bool', '1', $tok->pos);
            case 'FALSE':
                $this->i++;
                return new Ast\Literal('bool', '0', $tok->pos);
            case 'CASE':
                return $this->caseExpr();
            case 'EXISTS':
                $this->i++;
                return $this->existsExpr(false, $tok->pos);
            case 'NOT':
                // only NOT EXISTS reaches here (see notExpr)
                $this->i += 2;
                return $this->existsExpr(true, $tok->pos);
            case 'INTERVAL':
                $this->i++;
                $value = $this->expr();
                return new Ast\Interval($value, $this->intervalUnit(), $tok->pos);
            case 'CAST':
                if ($call) {
                    return $this->castExpr();
                }
                break;
            case 'CONVERT':
                if ($call) {
                    return $this->convertExpr();
                }
                break;
            case 'DATE':
            case 'TIME':
            case 'TIMESTAMP':
                if ($next->type === Token::STRING) {
                    $this->i += 2;
                    $type = $upper === 'TIMESTAMP' ? 'DATETIME' : $upper;
                    return new Ast\Cast(new Ast\Literal('string', $next->value, $next->pos), $type, pos: $tok->pos);
                }
                break;
            case 'DEFAULT':
                $this->fail('DEFAULT is only allowed as a whole value');
                // no break
            case 'MATCH':
                $this->fail('MATCH ... AGAINST is not supported');
                // no break
            case 'ROW':
                if ($call) {
                    $this->fail('ROW(...) constructors are not supported');
                }
                break;
        }
        if ($call) {
            if (isset(self::RESERVED[$upper]) && !isset(self::RESERVED_FUNCTIONS[$upper])) {
                $this->fail('unexpected keyword ' . $upper);
            }
            return $this->functionCall();
        }
        if (isset(self::NILADIC[$upper])) {
            $this->i++;
            return new Ast\FunctionCall($upper, pos: $tok->pos);
        }
        if (isset(self::RESERVED[$upper])) {
            $this->fail('unexpected keyword ' . $upper);
        }
        if ($next->type === Token::STRING && ($upper === 'N' || $upper[0] === '_')) {
            // _utf8mb4'x', _binary'x', N'x': read as a column with an alias, they would be wrong.
            $this->fail('character set introducers (' . $tok->value . '\'...\') are not supported');
        }
        return $this->columnRef();
    }

    private function parenthesised(): Expr
    {
        $open = $this->t[$this->i++];
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && $tok->upper === 'SELECT') {
            $query = $this->selectStatement();
            $this->expectOp(')');
            return new Ast\Subquery($query, $open->pos);
        }
        $first = $this->expr();
        if ($this->acceptOp(',')) {
            $items = [$first];
            do {
                $items[] = $this->expr();
            } while ($this->acceptOp(','));
            $this->expectOp(')');
            return new Ast\Tuple($items, $open->pos);
        }
        $this->expectOp(')');
        return $first;
    }

    private function columnRef(): Ast\ColumnRef
    {
        $pos = $this->t[$this->i]->pos;
        $first = $this->identifier();
        if (!$this->acceptOp('.')) {
            return new Ast\ColumnRef(null, $first, $pos);
        }
        if ($this->acceptOp('*')) {
            return new Ast\ColumnRef($first, '*', $pos);
        }
        $second = $this->anyIdentifier();
        if (!$this->acceptOp('.')) {
            return new Ast\ColumnRef($first, $second, $pos);
        }
        if ($this->acceptOp('*')) {
            return new Ast\ColumnRef($second, '*', $pos, $first);
        }
        return new Ast\ColumnRef($second, $this->anyIdentifier(), $pos, $first);
    }

    private function systemVariable(Token $tok): Ast\Variable
    {
        $parts = explode('.', $tok->value);
        if (count($parts) === 1) {
            return new Ast\Variable($parts[0], true, null, $tok->pos);
        }
        $scope = strtoupper($parts[0]);
        if ($scope === 'LOCAL') {
            $scope = 'SESSION';
        }
        if ($scope !== 'SESSION' && $scope !== 'GLOBAL') {
            $this->fail('unknown variable scope ' . $parts[0]);
        }
        return new Ast\Variable($parts[1], true, $scope, $tok->pos);
    }

    private function existsExpr(bool $not, int $pos): Ast\Exists
    {
        $this->expectOp('(');
        if (!$this->isWord('SELECT')) {
            $this->fail('expected SELECT after EXISTS (');
        }
        $query = $this->selectStatement();
        $this->expectOp(')');
        return new Ast\Exists($query, $not, $pos);
    }

    private function caseExpr(): Ast\CaseExpr
    {
        $pos = $this->expectWord('CASE')->pos;
        $operand = $this->isWord('WHEN') ? null : $this->expr();
        $whens = [];
        while ($this->acceptWord('WHEN')) {
            $when = $this->expr();
            $this->expectWord('THEN');
            $whens[] = [$when, $this->expr()];
        }
        if ($whens === []) {
            $this->fail('CASE needs at least one WHEN');
        }
        $else = $this->acceptWord('ELSE') ? $this->expr() : null;
        $this->expectWord('END');
        return new Ast\CaseExpr($operand, $whens, $else, $pos);
    }

    private function intervalUnit(): string
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && isset(self::INTERVAL_UNITS[$tok->upper])) {
            $this->i++;
            return $tok->upper;
        }
        $this->fail('expected an INTERVAL unit (DAY, HOUR, ...)');
    }

    private function castExpr(): Ast\Cast
    {
        $pos = $this->t[$this->i]->pos;
        $this->i += 2;
        $expr = $this->expr();
        $this->expectWord('AS');
        $cast = $this->castType($expr, $pos);
        $this->expectOp(')');
        return $cast;
    }

    private function convertExpr(): Ast\Cast
    {
        $pos = $this->t[$this->i]->pos;
        $this->i += 2;
        $expr = $this->expr();
        if ($this->acceptWord('USING')) {
            $cast = new Ast\Cast($expr, 'CHAR', charset: $this->nameValue(), pos: $pos);
        } else {
            $this->expectOp(',');
            $cast = $this->castType($expr, $pos);
        }
        $this->expectOp(')');
        return $cast;
    }

    private function castType(Expr $expr, int $pos): Ast\Cast
    {
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::WORD || !isset(self::CAST_TYPES[$tok->upper])) {
            $this->fail('unknown CAST type ' . $tok->value);
        }
        $this->i++;
        $type = $tok->upper;
        if ($type === 'SIGNED' || $type === 'UNSIGNED') {
            $this->acceptWord('INTEGER') || $this->acceptWord('INT');
        } elseif ($type === 'INTEGER' || $type === 'INT') {
            $type = 'SIGNED';
        } elseif ($type === 'NCHAR') {
            $type = 'CHAR';
        }
        $cast = new Ast\Cast($expr, $type, pos: $pos);
        if ($this->acceptOp('(')) {
            $cast->length = $this->integer();
            if ($this->acceptOp(',')) {
                $cast->scale = $this->integer();
            }
            $this->expectOp(')');
        }
        if ($this->acceptWord('CHARACTER')) {
            $this->expectWord('SET');
            $cast->charset = $this->nameValue();
        } elseif ($this->acceptWord('CHARSET')) {
            $cast->charset = $this->nameValue();
        }
        return $cast;
    }

    private function functionCall(): Ast\FunctionCall
    {
        $tok = $this->t[$this->i];
        $this->i += 2;
        $call = new Ast\FunctionCall($tok->upper, pos: $tok->pos);
        switch ($tok->upper) {
            case 'COUNT':
                if ($this->isOp('*')) {
                    $star = $this->t[$this->i++];
                    $call->args[] = new Ast\Star($star->pos);
                    $this->expectOp(')');
                    return $this->noOver($call);
                }
                break;
            case 'SUBSTRING':
            case 'SUBSTR':
                $call->args[] = $this->expr();
                if ($this->acceptWord('FROM')) {
                    $call->args[] = $this->expr();
                    if ($this->acceptWord('FOR')) {
                        $call->args[] = $this->expr();
                    }
                    $this->expectOp(')');
                    return $call;
                }
                while ($this->acceptOp(',')) {
                    $call->args[] = $this->expr();
                }
                $this->expectOp(')');
                return $call;
            case 'TRIM':
                if ($this->isWord('LEADING') || $this->isWord('TRAILING') || $this->isWord('BOTH')) {
                    $this->fail('TRIM(LEADING/TRAILING/BOTH ...) is not supported');
                }
                break;
            case 'EXTRACT':
            case 'POSITION':
            case 'TIMESTAMPDIFF':
            case 'TIMESTAMPADD':
            case 'GET_FORMAT':
            case 'WEIGHT_STRING':
                $this->fail($tok->upper . '() is not supported');
        }
        if ($this->acceptWord('DISTINCT')) {
            $call->distinct = true;
        } elseif ($this->isWord('ALL') && !$this->isOpAt($this->i + 1, ')')) {
            $this->i++;
        }
        if (!$this->isOp(')')) {
            do {
                $call->args[] = $this->expr();
            } while ($this->acceptOp(','));
        }
        if ($tok->upper === 'GROUP_CONCAT') {
            if ($this->isWord('ORDER')) {
                $call->orderBy = $this->orderBy();
            }
            if ($this->acceptWord('SEPARATOR')) {
                $sep = $this->t[$this->i];
                if ($sep->type !== Token::STRING) {
                    $this->fail('SEPARATOR takes a string');
                }
                $this->i++;
                $call->separator = new Ast\Literal('string', $sep->value, $sep->pos);
            }
            if ($this->isWord('LIMIT')) {
                $this->fail('LIMIT inside GROUP_CONCAT is not supported');
            }
        } elseif ($call->distinct && $call->args === []) {
            $this->fail('DISTINCT needs an argument');
        }
        if ($this->isWord('USING')) {
            $this->fail($tok->upper . '(... USING ...) is not supported');
        }
        $this->expectOp(')');
        return $this->noOver($call);
    }

    private function noOver(Ast\FunctionCall $call): Ast\FunctionCall
    {
        if ($this->isWord('OVER')) {
            $this->fail('window functions (OVER) are not supported');
        }
        return $call;
    }

    // ------------------------------------------------------------ small pieces

    /** A table name where only one table is meant; db.table is refused (never guessed away). */
    private function tableIdent(string $where): string
    {
        [$schema, $name] = $this->qualifiedName();
        if ($schema !== null) {
            $this->failAt(
                $this->t[$this->i - 3]->pos,
                'a database-qualified table name in ' . $where . ' is not supported'
            );
        }
        return $name;
    }

    /** @return array{0: ?string, 1: string} [database or null, name] */
    private function qualifiedName(): array
    {
        $first = $this->identifier();
        if ($this->acceptOp('.')) {
            return [$first, $this->anyIdentifier()];
        }
        return [null, $first];
    }

    /** An identifier: a bare non-reserved word or a `quoted` one. */
    private function identifier(): string
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::QUOTED_IDENT || ($tok->type === Token::WORD && !isset(self::RESERVED[$tok->upper]))) {
            $this->i++;
            return $tok->value;
        }
        $this->fail('expected a name, found ' . $this->describe($tok));
    }

    /** After a dot any word is a name, reserved or not. */
    private function anyIdentifier(): string
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::QUOTED_IDENT || $tok->type === Token::WORD) {
            $this->i++;
            return $tok->value;
        }
        $this->fail('expected a name, found ' . $this->describe($tok));
    }

    /** A charset / collation / engine name: word, `quoted` or 'string'; DEFAULT as 'DEFAULT'. */
    private function nameValue(): string
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD || $tok->type === Token::QUOTED_IDENT || $tok->type === Token::STRING) {
            $this->i++;
            return $tok->type === Token::WORD && $tok->upper === 'DEFAULT' ? 'DEFAULT' : $tok->value;
        }
        $this->fail('expected a name, found ' . $this->describe($tok));
    }

    private function stringValue(): string
    {
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::STRING) {
            $this->fail('expected a string, found ' . $this->describe($tok));
        }
        $this->i++;
        return $tok->value;
    }

    private function integer(): int
    {
        $tok = $this->t[$this->i];
        if ($tok->type !== Token::NUMBER || !ctype_digit($tok->value)) {
            $this->fail('expected a whole number, found ' . $this->describe($tok));
        }
        $this->i++;
        return (int) $tok->value;
    }

    private function isWord(string $upper): bool
    {
        $tok = $this->t[$this->i];
        return $tok->type === Token::WORD && $tok->upper === $upper;
    }

    private function isWordAt(int $at, string $upper): bool
    {
        $tok = $this->t[$at] ?? null;
        return $tok !== null && $tok->type === Token::WORD && $tok->upper === $upper;
    }

    private function acceptWord(string $upper): bool
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && $tok->upper === $upper) {
            $this->i++;
            return true;
        }
        return false;
    }

    private function expectWord(string $upper): Token
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::WORD && $tok->upper === $upper) {
            $this->i++;
            return $tok;
        }
        $this->fail('expected ' . $upper . ', found ' . $this->describe($tok));
    }

    private function isOp(string $op): bool
    {
        $tok = $this->t[$this->i];
        return $tok->type === Token::OP && $tok->value === $op;
    }

    private function isOpAt(int $at, string $op): bool
    {
        $tok = $this->t[$at] ?? null;
        return $tok !== null && $tok->type === Token::OP && $tok->value === $op;
    }

    private function acceptOp(string $op): bool
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::OP && $tok->value === $op) {
            $this->i++;
            return true;
        }
        return false;
    }

    private function expectOp(string $op): void
    {
        $tok = $this->t[$this->i];
        if ($tok->type === Token::OP && $tok->value === $op) {
            $this->i++;
            return;
        }
        $this->fail('expected "' . $op . '", found ' . $this->describe($tok));
    }

    private function describe(Token $tok): string
    {
        return match ($tok->type) {
            Token::END => 'the end of the statement',
            Token::WORD => isset(self::RESERVED[$tok->upper]) ? 'keyword ' . $tok->upper : 'word ' . $tok->value,
            Token::OP => '"' . $tok->value . '"',
            Token::STRING => 'a string',
            default => Token::typeName($tok->type) . ' ' . $tok->value,
        };
    }

    /** @throws ParseError at the current token */
    private function fail(string $reason): never
    {
        $this->failAt($this->t[$this->i]->pos, $reason);
    }

    private function failAt(int $offset, string $reason): never
    {
        throw new ParseError($offset, $reason, $this->sql);
    }
}
