<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\Ast;
use Berth\Pg\Parser;
use Berth\Pg\Tests\AstDump;
use PHPUnit\Framework\TestCase;

/** Statements: each form WordPress sends, and the tree it gives. */
final class StatementTest extends TestCase
{
    /**
     * @template T of Ast\Statement
     * @param class-string<T> $class
     * @return T
     */
    private function parse(string $sql, string $class): Ast\Statement
    {
        $statement = (new Parser())->parse($sql);
        $this->assertInstanceOf($class, $statement);
        $this->assertSame($sql, $statement->sql);
        return $statement;
    }

    public function testSelectClauses(): void
    {
        $s = $this->parse(
            'SELECT SQL_CALC_FOUND_ROWS DISTINCT wp_posts.ID, COUNT( 1 ) AS n, post_title title, 1 as test '
            . 'FROM wp_posts WHERE 1=1 GROUP BY wp_posts.ID HAVING n > 1 ORDER BY wp_posts.post_date DESC, ID ASC LIMIT 0, 10',
            Ast\Select::class
        );
        $this->assertTrue($s->calcFoundRows);
        $this->assertTrue($s->distinct);
        $this->assertSame(
            [['wp_posts.ID', null], ['COUNT( 1 )', 'n'], ['post_title', 'title'], ['1', 'test']],
            array_map(fn ($c) => [$c->text, $c->alias], $s->columns)
        );
        $this->assertSame(
            '{SELECT wp_posts.ID, COUNT(1) AS n, post_title AS title, 1 AS test FROM wp_posts WHERE (= 1 1) '
            . 'GROUP BY wp_posts.ID HAVING (> n 1) ORDER BY wp_posts.post_date DESC, ID LIMIT 10 OFFSET 0}',
            AstDump::select($s)
        );
    }

    public function testSelectItemTextIsTheSourceText(): void
    {
        $s = $this->parse("SELECT COUNT(*), t.*, *, CONCAT( 'a',  b ) , `x` AS 'quoted alias' FROM t", Ast\Select::class);
        $this->assertSame(['COUNT(*)', 't.*', '*', "CONCAT( 'a',  b )", '`x`'], array_map(fn ($c) => $c->text, $s->columns));
        $this->assertSame('quoted alias', $s->columns[4]->alias);
        $this->assertInstanceOf(Ast\Star::class, $s->columns[2]->expr);
    }

    public function testLimitForms(): void
    {
        foreach (['LIMIT 5' => ['5', null], 'LIMIT 10, 5' => ['5', '10'], 'LIMIT 5 OFFSET 10' => ['5', '10']] as $limit => [$n, $off]) {
            $s = $this->parse('SELECT a FROM t ' . $limit, Ast\Select::class);
            $this->assertInstanceOf(Ast\Literal::class, $s->limit);
            $this->assertSame($n, $s->limit->value);
            $this->assertSame($off, $s->offset === null ? null : AstDump::expr($s->offset));
        }
    }

    public function testJoinsHintsDerivedTablesAndLocking(): void
    {
        $s = $this->parse(
            'SELECT t.term_id FROM wp_terms AS t INNER JOIN wp_term_taxonomy AS tt ON t.term_id = tt.term_id '
            . 'LEFT OUTER JOIN wp_termmeta m FORCE INDEX FOR JOIN (meta_key) ON (m.term_id = t.term_id) '
            . 'JOIN x, (SELECT 1 AS one) AS d, wp_posts USE KEY () FOR UPDATE',
            Ast\Select::class
        );
        $this->assertSame(
            '{SELECT t.term_id FROM (CROSS (LEFT (INNER wp_terms t wp_term_taxonomy tt ON (= t.term_id tt.term_id)) '
            . 'wp_termmeta m FORCE INDEX FOR JOIN (meta_key) ON (= m.term_id t.term_id)) x), {SELECT 1 AS one} d, '
            . 'wp_posts USE INDEX ()}',
            AstDump::select($s)
        );
        $this->assertTrue($s->forUpdate);
    }

    public function testUnion(): void
    {
        $s = $this->parse('(SELECT a FROM t) UNION ALL (SELECT b FROM u) UNION SELECT c FROM v ORDER BY 1 LIMIT 3', Ast\Select::class);
        $this->assertSame('{SELECT a FROM t UNION ALL {SELECT b FROM u} UNION {SELECT c FROM v} ORDER BY 1 LIMIT 3}', AstDump::select($s));
        $this->assertSame([true, false], array_map(fn ($u) => $u[0], $s->unions));
    }

    public function testInsertValues(): void
    {
        $i = $this->parse("INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('a', 'x', 'yes'), ('b', DEFAULT, 'no')", Ast\Insert::class);
        $this->assertSame(['INSERT', false, 'wp_options'], [$i->verb, $i->ignore, $i->table]);
        $this->assertSame(['option_name', 'option_value', 'autoload'], $i->columns);
        $this->assertSame([["'a'", "'x'", "'yes'"], ["'b'", 'DEFAULT', "'no'"]], array_map(fn ($r) => array_map([AstDump::class, 'expr'], $r), $i->rows));
    }

    public function testInsertOnDuplicateKeyUpdate(): void
    {
        $i = $this->parse(
            "INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('a', 'x', 'yes') "
            . 'ON DUPLICATE KEY UPDATE `option_name` = VALUES(`option_name`), `option_value` = VALUES(`option_value`), autoload = \'no\'',
            Ast\Insert::class
        );
        $this->assertSame(
            [['option_name', 'VALUES(option_name)'], ['option_value', 'VALUES(option_value)'], ['autoload', "'no'"]],
            array_map(fn ($p) => [$p[0], AstDump::expr($p[1])], $i->onDuplicate)
        );
    }

    public function testInsertIgnoreReplaceSetAndSelect(): void
    {
        $i = $this->parse("INSERT IGNORE INTO wp_options (option_name, option_value, autoload) VALUES ('l', '1', 'no')", Ast\Insert::class);
        $this->assertTrue($i->ignore);
        $r = $this->parse("REPLACE INTO wp_options SET option_name = 'a', option_value = 2", Ast\Insert::class);
        $this->assertSame(['REPLACE', ['option_name', 'option_value']], [$r->verb, $r->columns]);
        $this->assertSame(["'a'", '2'], array_map([AstDump::class, 'expr'], $r->rows[0]));
        $s = $this->parse('INSERT INTO t (a) SELECT b FROM u WHERE c = 1', Ast\Insert::class);
        $this->assertNotNull($s->select);
        $this->assertSame('{SELECT b FROM u WHERE (= c 1)}', AstDump::select($s->select));
    }

    public function testUpdate(): void
    {
        $u = $this->parse("UPDATE `wp_options` SET `option_value` = 'x', t.b = b + 1 WHERE `option_name` = 'y' ORDER BY a LIMIT 1", Ast\Update::class);
        $this->assertSame([['option_value', "'x'"], ['t.b', '(+ b 1)']], array_map(fn ($p) => [AstDump::expr($p[0]), AstDump::expr($p[1])], $u->set));
        $this->assertSame("(= option_name 'y')", AstDump::expr($u->where));
        $this->assertSame('1', AstDump::expr($u->limit));
        $this->assertCount(1, $u->orderBy);
    }

    public function testSingleTableDelete(): void
    {
        $d = $this->parse("DELETE FROM `wp_options` WHERE `option_name` = 'x' LIMIT 1", Ast\Delete::class);
        $this->assertSame([], $d->targets);
        $this->assertSame(['wp_options'], array_map([AstDump::class, 'table'], $d->from));
        $this->assertSame('1', AstDump::expr($d->limit));
    }

    public function testMultiTableDelete(): void
    {
        // delete_expired_transients()
        $d = $this->parse(
            "DELETE a, b FROM wp_options a, wp_options b WHERE a.option_name LIKE '\\_transient\\_%' "
            . "AND a.option_name NOT LIKE '\\_transient\\_timeout\\_%' "
            . "AND b.option_name = CONCAT( '_transient_timeout_', SUBSTRING( a.option_name, 12 ) ) AND b.option_value < 1700000000",
            Ast\Delete::class
        );
        $this->assertSame(['a', 'b'], $d->targets);
        $this->assertSame(['wp_options a', 'wp_options b'], array_map([AstDump::class, 'table'], $d->from));
        $this->assertSame(
            "(AND (AND (AND (LIKE a.option_name '\\\\_transient\\\\_%') (NOT LIKE a.option_name '\\\\_transient\\\\_timeout\\\\_%')) "
            . "(= b.option_name CONCAT('_transient_timeout_', SUBSTRING(a.option_name, 12)))) (< b.option_value 1700000000))",
            AstDump::expr($d->where)
        );
        $u = $this->parse('DELETE FROM a.*, b USING wp_options a JOIN wp_options b ON a.x = b.y WHERE 1', Ast\Delete::class);
        $this->assertSame(['a', 'b'], $u->targets);
    }

    public function testShowForms(): void
    {
        $cases = [
            'SHOW FULL COLUMNS FROM `wp_options`' => ['FULL COLUMNS', 'wp_options', null],
            'SHOW COLUMNS FROM wp_options LIKE \'opt%\'' => ['COLUMNS', 'wp_options', 'opt%'],
            'SHOW INDEX FROM wp_posts;' => ['INDEX', 'wp_posts', null],
            "SHOW TABLES LIKE 'wp\\_%'" => ['TABLES', null, 'wp\\_%'],
            'SHOW FULL TABLES' => ['FULL TABLES', null, null],
            "SHOW VARIABLES LIKE 'max_allowed_packet'" => ['VARIABLES', null, 'max_allowed_packet'],
            "SHOW TABLE STATUS LIKE 'wp_%'" => ['TABLE STATUS', null, 'wp_%'],
            'SHOW CREATE TABLE wp_posts' => ['CREATE TABLE', 'wp_posts', null],
            'SHOW GRANTS' => ['GRANTS', null, null],
        ];
        foreach ($cases as $sql => [$what, $table, $like]) {
            $s = $this->parse($sql, Ast\Show::class);
            $this->assertSame([$what, $table, $like], [$s->what, $s->table, $s->like], $sql);
        }
        $g = $this->parse("SHOW GLOBAL VARIABLES WHERE Variable_name = 'x'", Ast\Show::class);
        $this->assertTrue($g->global);
        $this->assertSame("(= Variable_name 'x')", AstDump::expr($g->where));
    }

    public function testDescribe(): void
    {
        foreach (['DESCRIBE wp_users;', 'DESC `wp_users`', 'EXPLAIN wp_users'] as $sql) {
            $d = $this->parse($sql, Ast\Describe::class);
            $this->assertSame(['wp_users', null], [$d->table, $d->column]);
        }
        $this->assertSame('ID', $this->parse('DESCRIBE wp_users ID', Ast\Describe::class)->column);
    }

    public function testSetForms(): void
    {
        $n = $this->parse("SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_520_ci'", Ast\Set::class);
        $this->assertSame(['utf8mb4', 'utf8mb4_unicode_520_ci'], [$n->names, $n->collate]);
        $this->assertSame('utf8mb4', $this->parse('SET NAMES utf8mb4', Ast\Set::class)->names);
        $m = $this->parse("SET SESSION sql_mode='NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'", Ast\Set::class);
        $this->assertSame(
            [['@@SESSION.sql_mode', "'NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'"]],
            array_map(fn ($a) => [AstDump::expr($a[0]), AstDump::expr($a[1])], $m->assignments)
        );
        $v = $this->parse("SET @@SESSION.sql_mode = REPLACE(@@SESSION.sql_mode, 'X', ''), @a := 1, autocommit = ON, time_zone = '+00:00'", Ast\Set::class);
        $this->assertSame(
            [
                ['@@SESSION.sql_mode', "REPLACE(@@SESSION.sql_mode, 'X', '')"],
                ['@a', '1'],
                ['@@autocommit', "'ON'"],
                ['@@time_zone', "'+00:00'"],
            ],
            array_map(fn ($a) => [AstDump::expr($a[0]), AstDump::expr($a[1])], $v->assignments)
        );
    }

    public function testSelectSystemVariables(): void
    {
        $s = $this->parse('SELECT @@SESSION.sql_mode', Ast\Select::class);
        $this->assertSame('@@SESSION.sql_mode', $s->columns[0]->text);
        $this->parse('SELECT VERSION()', Ast\Select::class);
        $this->parse('SELECT DATABASE()', Ast\Select::class);
        $this->parse('SELECT FOUND_ROWS()', Ast\Select::class);
    }

    public function testTransactionsAndLocks(): void
    {
        $cases = ['START TRANSACTION' => 'BEGIN', 'BEGIN' => 'BEGIN', 'COMMIT' => 'COMMIT', 'ROLLBACK' => 'ROLLBACK',
            'SAVEPOINT sp1' => 'SAVEPOINT', 'RELEASE SAVEPOINT sp1' => 'RELEASE', 'ROLLBACK TO SAVEPOINT sp1' => 'ROLLBACK TO'];
        foreach ($cases as $sql => $action) {
            $t = $this->parse($sql, Ast\Transaction::class);
            $this->assertSame($action, $t->action, $sql);
        }
        $l = $this->parse('LOCK TABLES wp_options WRITE, wp_posts AS p READ', Ast\LockTables::class);
        $this->assertSame(
            [['table' => 'wp_options', 'alias' => null, 'mode' => 'WRITE'], ['table' => 'wp_posts', 'alias' => 'p', 'mode' => 'READ']],
            $l->tables
        );
        $this->assertTrue($this->parse('UNLOCK TABLES', Ast\LockTables::class)->unlock);
    }

    public function testTruncateDropAndMaintenance(): void
    {
        $this->assertSame('wp_x', $this->parse('TRUNCATE TABLE wp_x', Ast\TruncateTable::class)->name);
        $this->assertSame('wp_x', $this->parse('TRUNCATE `wp_x`', Ast\TruncateTable::class)->name);
        $d = $this->parse('DROP TABLE IF EXISTS wp_a, `wp_b`', Ast\DropTable::class);
        $this->assertSame([['wp_a', 'wp_b'], true], [$d->names, $d->ifExists]);
        $o = $this->parse('OPTIMIZE TABLE wp_options', Ast\TableMaintenance::class);
        $this->assertSame(['OPTIMIZE', ['wp_options']], [$o->action, $o->tables]);
    }

    public function testAlterForms(): void
    {
        // dbDelta and the upgrade_xxx() functions.
        $a = $this->parse('ALTER TABLE wp_posts ADD COLUMN post_x varchar(20) NOT NULL default \'\' AFTER ID', Ast\AlterTable::class);
        $act = $a->actions[0];
        $this->assertSame(['ADD COLUMN', 'post_x', 'varchar', 20, false, 'ID'], [$act->kind, $act->column->name, $act->column->type, $act->column->length, $act->column->nullable, $act->after]);

        $a = $this->parse('ALTER TABLE wp_signups ADD signup_id BIGINT(20) NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST', Ast\AlterTable::class);
        $c = $a->actions[0]->column;
        $this->assertSame(['ADD COLUMN', 'bigint', true, true, true], [$a->actions[0]->kind, $c->type, $c->autoIncrement, $c->primaryKey, $a->actions[0]->first]);

        $a = $this->parse('ALTER TABLE wp_options CHANGE COLUMN `option_name` option_name varchar(191) NOT NULL default \'\'', Ast\AlterTable::class);
        $this->assertSame(['CHANGE COLUMN', 'option_name', 'option_name', 191], [$a->actions[0]->kind, $a->actions[0]->name, $a->actions[0]->column->name, $a->actions[0]->column->length]);

        $a = $this->parse('ALTER TABLE wp_options MODIFY option_name VARCHAR(191)', Ast\AlterTable::class);
        $this->assertSame('MODIFY COLUMN', $a->actions[0]->kind);

        $a = $this->parse("ALTER TABLE wp_posts ALTER COLUMN `post_status` SET DEFAULT 'publish'", Ast\AlterTable::class);
        $this->assertSame(['ALTER COLUMN SET DEFAULT', 'post_status', "'publish'"], [$a->actions[0]->kind, $a->actions[0]->name, AstDump::expr($a->actions[0]->default)]);

        $a = $this->parse('ALTER TABLE wp_usermeta DROP INDEX meta_key, ADD INDEX meta_key(meta_key(191))', Ast\AlterTable::class);
        $this->assertSame(['DROP INDEX', 'meta_key'], [$a->actions[0]->kind, $a->actions[0]->name]);
        $idx = $a->actions[1]->index;
        $this->assertSame(['ADD INDEX', 'INDEX', 'meta_key', [['name' => 'meta_key', 'length' => 191, 'desc' => false]]], [$a->actions[1]->kind, $idx->kind, $idx->name, $idx->columns]);

        $a = $this->parse('ALTER TABLE wp_options DROP PRIMARY KEY, ADD PRIMARY KEY(option_id)', Ast\AlterTable::class);
        $this->assertSame(['DROP PRIMARY KEY', 'ADD INDEX', 'PRIMARY'], [$a->actions[0]->kind, $a->actions[1]->kind, $a->actions[1]->index->kind]);

        $a = $this->parse('ALTER TABLE wp_terms ADD UNIQUE KEY `slug` (`slug`(191)), ADD FULLTEXT body (a, b)', Ast\AlterTable::class);
        $this->assertSame(['UNIQUE', 'slug', 'FULLTEXT'], [$a->actions[0]->index->kind, $a->actions[0]->index->name, $a->actions[1]->index->kind]);

        $a = $this->parse('ALTER TABLE `wp_posts` ADD INDEX ( `post_name` )', Ast\AlterTable::class);
        $this->assertNull($a->actions[0]->index->name);

        $a = $this->parse('ALTER TABLE wp_users DROP user_level, DROP COLUMN `x`', Ast\AlterTable::class);
        $this->assertSame([['DROP COLUMN', 'user_level'], ['DROP COLUMN', 'x']], array_map(fn ($x) => [$x->kind, $x->name], $a->actions));

        $a = $this->parse('ALTER TABLE wp_posts CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', Ast\AlterTable::class);
        $this->assertSame(['CONVERT CHARSET', ['CHARSET' => 'utf8mb4', 'COLLATE' => 'utf8mb4_unicode_ci']], [$a->actions[0]->kind, $a->actions[0]->options]);

        $a = $this->parse('ALTER TABLE wp_x RENAME TO wp_y, ENGINE=InnoDB', Ast\AlterTable::class);
        $this->assertSame([['RENAME', 'wp_y', []], ['OPTION', null, ['ENGINE' => 'InnoDB']]], array_map(fn ($x) => [$x->kind, $x->name, $x->options], $a->actions));

        $c = $this->parse('CREATE UNIQUE INDEX k ON wp_x (a, b(10) DESC)', Ast\AlterTable::class);
        $this->assertSame(['wp_x', 'ADD INDEX', 'UNIQUE'], [$c->table, $c->actions[0]->kind, $c->actions[0]->index->kind]);
        $this->assertTrue($c->actions[0]->index->columns[1]['desc']);
        $d = $this->parse('DROP INDEX k ON wp_x', Ast\AlterTable::class);
        $this->assertSame(['DROP INDEX', 'k'], [$d->actions[0]->kind, $d->actions[0]->name]);
    }

    public function testCreateTableColumnAttributes(): void
    {
        $c = $this->parse(
            "CREATE TABLE IF NOT EXISTS wp_x (\n id bigint(20) unsigned zerofill NOT NULL auto_increment,\n"
            . " kind enum('a','b''c') NOT NULL DEFAULT 'a' COMMENT 'the kind',\n"
            . " amount decimal(10,2) DEFAULT -1.5,\n"
            . " body longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,\n"
            . " changed timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,\n"
            . " code char(3) UNIQUE KEY,\n"
            . " PRIMARY KEY  (id),\n UNIQUE KEY kc (kind, code),\n KEY body (body(191)) USING BTREE\n"
            . ") ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci COMMENT='x'",
            Ast\CreateTable::class
        );
        $this->assertTrue($c->ifNotExists);
        [$id, $kind, $amount, $body, $changed, $code] = $c->columns;
        $this->assertSame(['bigint', 20, true, true, false, true], [$id->type, $id->length, $id->unsigned, $id->zerofill, $id->nullable, $id->autoIncrement]);
        $this->assertSame(['enum', ['a', "b'c"], "'a'", 'the kind'], [$kind->type, $kind->values, AstDump::expr($kind->default), $kind->comment]);
        $this->assertSame([10, 2, '(- 1.5)', null], [$amount->length, $amount->scale, AstDump::expr($amount->default), $amount->nullable]);
        $this->assertSame(['utf8mb4', 'utf8mb4_bin', true], [$body->charset, $body->collation, $body->nullable]);
        $this->assertSame(['CURRENT_TIMESTAMP()', 'CURRENT_TIMESTAMP()'], [AstDump::expr($changed->default), AstDump::expr($changed->onUpdate)]);
        $this->assertTrue($code->unique);
        $this->assertSame(
            [['PRIMARY', null, ['id']], ['UNIQUE', 'kc', ['kind', 'code']], ['INDEX', 'body', ['body']]],
            array_map(fn ($i) => [$i->kind, $i->name, array_column($i->columns, 'name')], $c->indexes)
        );
        $this->assertSame('BTREE', $c->indexes[2]->using);
        $this->assertSame(['ENGINE' => 'InnoDB', 'AUTO_INCREMENT' => '5', 'CHARSET' => 'utf8mb4', 'COLLATE' => 'utf8mb4_unicode_520_ci', 'COMMENT' => 'x'], $c->options);
    }
}
