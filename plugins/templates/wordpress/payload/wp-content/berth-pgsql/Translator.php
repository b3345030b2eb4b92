<?php

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;

/**
 * MySQL statements to PostgreSQL, one connection's worth: parses each statement, checks it
 * against the catalogue and writes PostgreSQL with MySQL's meaning, or refuses it
 * (MysqlError with MySQL's own answer, TranslateError for what it does not support). It
 * keeps the session: system and user variables, and the query behind FOUND_ROWS().
 * See README.md, "Translator", for the semantics decided.
 */
final class Translator
{
    /** Bump when support.sql or the catalogue table change: the wpdb layer reruns setupSql(). */
    public const SUPPORT_VERSION = 1;

    /** What VERSION() and the server info say: the MariaDB whose behaviour is emulated. */
    public const SERVER_VERSION = '10.11.6-MariaDB';

    private const DEFAULT_VARIABLES = [
        'autocommit' => 'ON',
        'character_set_client' => 'utf8mb4',
        'character_set_connection' => 'utf8mb4',
        'character_set_database' => 'utf8mb4',
        'character_set_filesystem' => 'binary',
        'character_set_results' => 'utf8mb4',
        'character_set_server' => 'utf8mb4',
        'character_set_system' => 'utf8mb3',
        'collation_connection' => 'utf8mb4_general_ci',
        'collation_database' => 'utf8mb4_general_ci',
        'collation_server' => 'utf8mb4_general_ci',
        'default_storage_engine' => 'InnoDB',
        'foreign_key_checks' => 'ON',
        'group_concat_max_len' => '1048576',
        'have_ssl' => 'DISABLED',
        'innodb_version' => '10.11.6',
        'interactive_timeout' => '28800',
        'lower_case_table_names' => '0',
        'max_allowed_packet' => '16777216',
        'max_connections' => '151',
        'net_read_timeout' => '30',
        'net_write_timeout' => '60',
        'port' => '3306',
        'sql_auto_is_null' => 'OFF',
        'sql_big_selects' => 'ON',
        'sql_mode' => 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION',
        'sql_safe_updates' => 'OFF',
        'storage_engine' => 'InnoDB',
        'system_time_zone' => 'UTC',
        'time_zone' => 'SYSTEM',
        'transaction_isolation' => 'READ-COMMITTED',
        'tx_isolation' => 'READ-COMMITTED',
        'unique_checks' => 'ON',
        'version' => self::SERVER_VERSION,
        'version_comment' => 'MariaDB emulated on PostgreSQL (Berth)',
        'version_compile_os' => 'Linux',
        'wait_timeout' => '28800',
    ];

    private const ANSWERED_FUNCTIONS = ['VERSION' => true, 'DATABASE' => true, 'SCHEMA' => true, 'USER' => true,
        'CURRENT_USER' => true, 'SESSION_USER' => true, 'SYSTEM_USER' => true];

    private Parser $parser;
    private ExpressionWriter $writer;
    private SelectWriter $selects;
    private DmlWriter $dml;
    private DdlTranslator $ddl;
    private ShowAnswers $answers;

    /** @var array<string, ?string> */
    private array $variables;

    /** @var array<string, ?string> */
    private array $userVariables = [];

    /** What the last SELECT would count for FOUND_ROWS(), as a query block. */
    private ?string $lastCountSource = null;

    public function __construct(private Catalog $catalog, private string $databaseName)
    {
        $this->variables = self::DEFAULT_VARIABLES;
        $this->variables['berth_user'] = $databaseName . '@localhost';
        $this->parser = new Parser();
        $this->writer = new ExpressionWriter($databaseName, $this->variables, $this->userVariables);
        $this->selects = new SelectWriter($catalog, $this->writer, $databaseName);
        $this->writer->selects = $this->selects;
        $this->dml = new DmlWriter($this->selects, $this->writer);
        $this->ddl = new DdlTranslator($catalog, $databaseName);
        $this->answers = new ShowAnswers($catalog, $databaseName, $this->variables);
    }

    /**
     * Idempotent statements creating, in the connection's current schema, the collations,
     * the catalogue table and the MySQL-emulating functions.
     *
     * @return string[]
     */
    public static function setupSql(): array
    {
        $statements = [];
        foreach (preg_split('/^---$/m', (string) file_get_contents(__DIR__ . '/support.sql')) as $part) {
            $sql = trim(preg_replace('/^--.*$/m', '', $part));
            if ($sql !== '') {
                $statements[] = $sql;
            }
        }
        $statements[] = Catalog::createSql();
        return $statements;
    }

    public function catalog(): Catalog
    {
        return $this->catalog;
    }

    /**
     * Replaces the catalogue (the wpdb layer reloads it with Catalog::loadSql() when DDL
     * statements failed to run: translate() already applied their change in memory).
     */
    public function setCatalog(Catalog $catalog): void
    {
        $this->catalog = $catalog;
        $this->selects->setCatalog($catalog);
        $this->ddl->setCatalog($catalog);
        $this->answers->setCatalog($catalog);
    }

    /** @return array<string, ?string> the session's system variables (lower-case names) */
    public function variables(): array
    {
        return $this->variables;
    }

    /** @throws MysqlError|TranslateError */
    public function translate(string $mysql): Translation
    {
        try {
            $statement = $this->parser->parse($mysql);
        } catch (ParseError $e) {
            throw TranslateError::fromParse($e);
        }
        $this->writer->aggregateDepth = 0;
        $this->writer->valuesTable = null;
        $this->writer->assigned = [];
        try {
            return $this->dispatch($statement);
        } catch (\Error $e) {
            // A tree the writers did not expect: refuse the statement loudly, never crash the page.
            throw new TranslateError('an internal error (' . $e->getMessage() . ' at ' . basename($e->getFile()) . ':' . $e->getLine() . ')', $e);
        }
    }

    private function dispatch(Ast\Statement $statement): Translation
    {
        return match (true) {
            $statement instanceof Ast\Select => $this->select($statement),
            $statement instanceof Ast\Insert => $this->dml->insert($statement),
            $statement instanceof Ast\Update => $this->dml->update($statement),
            $statement instanceof Ast\Delete => $this->dml->delete($statement),
            $statement instanceof Ast\CreateTable => $this->ddlDone($this->ddl->create($statement)),
            $statement instanceof Ast\AlterTable => $this->ddlDone($this->ddl->alter($statement)),
            $statement instanceof Ast\DropTable => $this->ddlDone($this->ddl->drop($statement)),
            $statement instanceof Ast\TruncateTable => $this->ddl->truncate($statement),
            $statement instanceof Ast\Describe => $this->answers->describe($statement),
            $statement instanceof Ast\Show => $this->answers->show($statement),
            $statement instanceof Ast\Set => $this->set($statement),
            $statement instanceof Ast\Transaction => $this->transaction($statement),
            $statement instanceof Ast\LockTables => new Translation('noop'),
            $statement instanceof Ast\TableMaintenance => $this->maintenance($statement),
            default => throw new TranslateError('the statement ' . (new \ReflectionClass($statement))->getShortName()),
        };
    }

    private function ddlDone(Translation $t): Translation
    {
        // The catalogue object changed in place; the select writer's column cache must not lag.
        $this->selects->setCatalog($this->catalog);
        return $t;
    }

    private function select(Ast\Select $s): Translation
    {
        if ($s->from === [] && $s->unions === [] && $s->where === null) {
            if (count($s->columns) === 1 && $s->columns[0]->expr instanceof Ast\FunctionCall
                && $s->columns[0]->expr->name === 'FOUND_ROWS' && $s->columns[0]->expr->args === []) {
                return $this->foundRows($s->columns[0]);
            }
            $answer = $this->answerSelect($s);
            if ($answer !== null) {
                return $answer;
            }
        }
        $result = $this->selects->statement($s);
        $t = new Translation('select', [$result['sql']]);
        if ($s->calcFoundRows) {
            $this->lastCountSource = $result['count'];
            $t->foundRowsSql = $this->countSql($result['count'], 'FOUND_ROWS()');
        } else {
            // Without SQL_CALC_FOUND_ROWS, MySQL's FOUND_ROWS() is the last SELECT's row count.
            $this->lastCountSource = $result['sql'];
        }
        return $t;
    }

    private function countSql(string $source, string $name): string
    {
        return 'SELECT count(*) AS ' . Sql::ident($name) . ' FROM (' . $source . ') AS "__berth_found"';
    }

    private function foundRows(Ast\SelectItem $item): Translation
    {
        $name = $item->alias ?? $item->text;
        if ($this->lastCountSource === null) {
            return new Translation('select', ['SELECT 0 AS ' . Sql::ident($name)]);
        }
        return new Translation('select', [$this->countSql($this->lastCountSource, $name)]);
    }

    /** SELECT @@x, VERSION(), DATABASE() ...: answered from the session, never sent. */
    private function answerSelect(Ast\Select $s): ?Translation
    {
        $columns = [];
        $row = [];
        foreach ($s->columns as $item) {
            $e = $item->expr;
            if ($e instanceof Ast\Variable || ($e instanceof Ast\FunctionCall && isset(self::ANSWERED_FUNCTIONS[$e->name]) && $e->args === [])
                || ($e instanceof Ast\Literal && $e->kind !== 'hex')) {
                $typed = $this->writer->expr($e, new Scope(), 'field list');
                $value = $typed->string ?? ($typed->type === 'null' ? null : $typed->sql);
                if ($e instanceof Ast\Literal && $e->kind === 'bool') {
                    $value = $e->value;
                }
                $columns[] = $item->alias ?? $item->text;
                $row[] = $value;
                continue;
            }
            return null;
        }
        if ($s->limit !== null && $s->limit instanceof Ast\Literal && $s->limit->value === '0') {
            return Translation::answer($columns, []);
        }
        return Translation::answer($columns, [$row]);
    }

    private function set(Ast\Set $s): Translation
    {
        if ($s->names !== null) {
            $names = strtolower(trim($s->names, "'\""));
            foreach (['character_set_client', 'character_set_connection', 'character_set_results'] as $v) {
                $this->variables[$v] = $names;
            }
            $this->variables['collation_connection'] = $s->collate !== null ? strtolower(trim($s->collate, "'\"")) : $names . '_general_ci';
        }
        foreach ($s->assignments as [$variable, $value]) {
            $text = $this->setValue($value);
            $name = strtolower($variable->name);
            if (!$variable->system) {
                $this->userVariables[$name] = $text;
                continue;
            }
            if (!array_key_exists($name, $this->variables) || str_starts_with($name, 'berth_')) {
                throw new MysqlError(1193, "Unknown system variable '" . $variable->name . "'");
            }
            if ($name === 'autocommit' && in_array(strtoupper((string) $text), ['0', 'OFF'], true)) {
                throw new TranslateError('SET autocommit = 0 (use START TRANSACTION)');
            }
            if ($name === 'sql_mode') {
                $text = strtoupper((string) $text);
            }
            $this->variables[$name] = $text;
        }
        return new Translation('set');
    }

    /** A SET value: a literal, a bare word (ON, utf8mb4), a variable, or DEFAULT. */
    private function setValue(Ast\Expr $e): ?string
    {
        if ($e instanceof Ast\ColumnRef && $e->table === null) {
            return $e->column;
        }
        if ($e instanceof Ast\DefaultValue) {
            return null;
        }
        if ($e instanceof Ast\Literal || $e instanceof Ast\Variable
            || ($e instanceof Ast\Unary && $e->op === '-' && $e->operand instanceof Ast\Literal)) {
            $typed = $this->writer->expr($e, new Scope(), 'field list');
            return $typed->string ?? ($typed->type === 'null' ? null : ($typed->type === 'bool' ? ($typed->sql === 'TRUE' ? '1' : '0') : $typed->sql));
        }
        throw new TranslateError('SET to a value that is not a literal');
    }

    private function transaction(Ast\Transaction $s): Translation
    {
        $point = $s->savepoint !== null ? Sql::ident($s->savepoint) : '';
        return match ($s->action) {
            'BEGIN' => new Translation('begin', ['BEGIN']),
            'COMMIT' => new Translation('commit', ['COMMIT']),
            'ROLLBACK' => new Translation('rollback', ['ROLLBACK']),
            'SAVEPOINT' => new Translation('savepoint', ['SAVEPOINT ' . $point]),
            'RELEASE' => new Translation('savepoint', ['RELEASE SAVEPOINT ' . $point]),
            'ROLLBACK TO' => new Translation('savepoint', ['ROLLBACK TO SAVEPOINT ' . $point]),
            default => throw new TranslateError('the transaction statement ' . $s->action),
        };
    }

    /** OPTIMIZE/ANALYZE/CHECK/REPAIR TABLE: PostgreSQL maintains its tables itself (autovacuum). */
    private function maintenance(Ast\TableMaintenance $s): Translation
    {
        $rows = [];
        $op = strtolower($s->action);
        foreach ($s->tables as $name) {
            if ($this->catalog->has($name)) {
                $rows[] = [$this->databaseName . '.' . $name, $op, 'status', 'OK'];
            } else {
                $rows[] = [$this->databaseName . '.' . $name, $op, 'Error', "Table '" . $this->databaseName . '.' . $name . "' doesn't exist"];
                $rows[] = [$this->databaseName . '.' . $name, $op, 'status', 'Operation failed'];
            }
        }
        return Translation::answer(['Table', 'Op', 'Msg_type', 'Msg_text'], $rows);
    }
}
