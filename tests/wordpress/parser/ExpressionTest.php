<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\Ast;
use Berth\Pg\Parser;
use Berth\Pg\Tests\AstDump;
use PHPUnit\Framework\TestCase;

/** Expressions: MySQL's operator precedence and each construct's tree. */
final class ExpressionTest extends TestCase
{
    private function tree(string $expr): string
    {
        $select = (new Parser())->parse('SELECT ' . $expr);
        $this->assertInstanceOf(Ast\Select::class, $select);
        $this->assertCount(1, $select->columns);
        return AstDump::expr($select->columns[0]->expr);
    }

    /** @return array<string, array{0: string, 1: string}> */
    public static function trees(): array
    {
        return [
            'AND binds tighter than OR' => ['a OR b AND c', '(OR a (AND b c))'],
            'OR is left-associative' => ['a OR b OR c', '(OR (OR a b) c)'],
            'XOR between OR and AND' => ['a OR b XOR c AND d', '(OR a (XOR b (AND c d)))'],
            '&& and || are AND and OR' => ['a || b && c', '(OR a (AND b c))'],
            'NOT negates the comparison' => ['NOT a = b', '(NOT (= a b))'],
            'NOT below AND' => ['NOT a AND b', '(AND (NOT a) b)'],
            '! binds to the operand' => ['!a = b', '(= (! a) b)'],
            'unary minus' => ['- 1', '(- 1)'],
            'unary minus before +' => ['- 1 + 2', '(+ (- 1) 2)'],
            'double minus' => ['1 - -1', '(- 1 (- 1))'],
            'BETWEEN takes its own AND' => ['x BETWEEN 1 AND 2 AND y', '(AND (BETWEEN x 1 2) y)'],
            'NOT BETWEEN' => ['x NOT BETWEEN a + 1 AND b', '(NOT BETWEEN x (+ a 1) b)'],
            'NOT IN list' => ['a NOT IN (1, \'x\')', "(NOT IN a [1, 'x'])"],
            'IN with spaces' => ['ID IN( 5 )', '(IN ID [5])'],
            'IN subquery' => ['a IN (SELECT b FROM t)', '(IN a {SELECT b FROM t})'],
            'LIKE ESCAPE' => ["a LIKE 'x|%' ESCAPE '|'", "(LIKE a 'x|%' ESCAPE '|')"],
            'NOT LIKE' => ["a NOT LIKE 'x\\_%'", "(NOT LIKE a 'x\\\\_%')"],
            'LIKE below AND' => ["a LIKE 'x' AND b", "(AND (LIKE a 'x') b)"],
            'REGEXP and NOT RLIKE' => ["a REGEXP '^x' OR b NOT RLIKE 'y'", "(OR (REGEXP a '^x') (NOT REGEXP b 'y'))"],
            'arithmetic' => ['1 + 2 * 3 - 4 / 2', '(- (+ 1 (* 2 3)) (/ 4 2))'],
            'DIV and MOD' => ['a DIV 2 MOD 3', '(% (DIV a 2) 3)'],
            '% operator' => ['a % 2', '(% a 2)'],
            'bit operators' => ['a | b & c << 1', '(| a (& b (<< c 1)))'],
            '^ binds tightest' => ['a * b ^ c', '(* a (^ b c))'],
            '<> is !=' => ['a <> b', '(!= a b)'],
            '<=>' => ['a <=> NULL', '(<=> a NULL)'],
            'comparison chain is left-associative' => ['a = b = c', '(= (= a b) c)'],
            'IS NOT NULL' => ['a IS NOT NULL', '(IS NOT NULL a)'],
            'IS TRUE after comparison' => ['a = 1 IS TRUE', '(IS TRUE (= a 1))'],
            'qualified columns' => ['`wp_posts`.`ID` = t.c', '(= wp_posts.ID t.c)'],
            'keyword after a dot is a name' => ['t.order', 't.order'],
            'user and system variables' => ['@x + @@SESSION.sql_mode + @@sql_mode + @@global.time_zone', '(+ (+ (+ @x @@SESSION.sql_mode) @@sql_mode) @@GLOBAL.time_zone)'],
            'NOW() - INTERVAL' => ['NOW() - INTERVAL 1 DAY', '(- NOW() (INTERVAL 1 DAY))'],
            'DATE_ADD with INTERVAL' => ['DATE_ADD(x, INTERVAL 2 HOUR)', 'DATE_ADD(x, (INTERVAL 2 HOUR))'],
            'DATE_SUB' => ['DATE_SUB( NOW(), INTERVAL 7 DAY ) > post_date', '(> DATE_SUB(NOW(), (INTERVAL 7 DAY)) post_date)'],
            'CASE searched' => ['CASE WHEN a = 1 THEN \'x\' WHEN b THEN 2 ELSE NULL END', "(CASE (WHEN (= a 1) 'x') (WHEN b 2) (ELSE NULL))"],
            'CASE simple' => ['CASE a WHEN 1 THEN 2 END', '(CASE a (WHEN 1 2))'],
            'IF()' => ['IF(a > 0, 1, 0)', 'IF((> a 0), 1, 0)'],
            'FIELD()' => ['FIELD(ID, 3, 1, 2)', 'FIELD(ID, 3, 1, 2)'],
            'COUNT(*)' => ['COUNT(*)', 'COUNT(*)'],
            'COUNT(DISTINCT)' => ['COUNT(DISTINCT a)', 'COUNT(DISTINCT a)'],
            'GROUP_CONCAT' => ["GROUP_CONCAT(DISTINCT a ORDER BY b DESC, c SEPARATOR ',')", "GROUP_CONCAT(DISTINCT a ORDER BY b DESC, c SEPARATOR ',')"],
            'CAST AS SIGNED' => ['CAST(meta_value AS SIGNED)', '(CAST meta_value SIGNED)'],
            'CAST AS DECIMAL(p,s)' => ['CAST(x AS DECIMAL(10,2))', '(CAST x DECIMAL(10,2))'],
            'CAST AS CHAR CHARACTER SET' => ['CAST(x AS CHAR(20) CHARACTER SET utf8mb4)', '(CAST x CHAR(20) CHARSET utf8mb4)'],
            'CAST AS DATE' => ['CAST(x AS DATE)', '(CAST x DATE)'],
            'CONVERT(x, type)' => ['CONVERT(x, UNSIGNED INTEGER)', '(CAST x UNSIGNED)'],
            'CONVERT USING' => ['CONVERT(x USING utf8mb4)', '(CAST x CHAR CHARSET utf8mb4)'],
            'date functions' => ["DATE_FORMAT(post_date, '%Y%m') AND YEAR(d) AND DAYOFMONTH(d) AND WEEK(d, 1)", "(AND (AND (AND DATE_FORMAT(post_date, '%Y%m') YEAR(d)) DAYOFMONTH(d)) WEEK(d, 1))"],
            'DATE literal' => ["DATE '2020-01-02'", "(CAST '2020-01-02' DATE)"],
            'niladic CURRENT_TIMESTAMP' => ['CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMP()'],
            'reserved-word functions' => ["LEFT(a, 2) = REPLACE(b, 'x', 'y')", "(= LEFT(a, 2) REPLACE(b, 'x', 'y'))"],
            'SUBSTRING FROM FOR' => ['SUBSTRING(a FROM 2 FOR 3)', 'SUBSTRING(a, 2, 3)'],
            'EXISTS and NOT EXISTS' => ['NOT EXISTS (SELECT 1) AND EXISTS (SELECT 2)', '(AND (NOT EXISTS {SELECT 1}) (EXISTS {SELECT 2}))'],
            'scalar subquery' => ['(SELECT MAX(ID) FROM t) + 1', '(+ {SELECT MAX(ID) FROM t} 1)'],
            'parentheses group' => ['(a OR b) AND c', '(AND (OR a b) c)'],
            'row value' => ['(a, b) = (1, 2)', '(= (ROW a b) (ROW 1 2))'],
            'COLLATE' => ['a COLLATE utf8mb4_bin = b', '(= (COLLATE a utf8mb4_bin) b)'],
            'BINARY' => ['BINARY a = b', '(= (BINARY a) b)'],
            'literals' => ["TRUE AND FALSE AND NULL AND 0x1F AND X'ab' AND .5 AND 1e3", "(AND (AND (AND (AND (AND (AND TRUE FALSE) NULL) X'1F') X'ab') .5) 1e3)"],
            'non-reserved keywords as columns' => ['count + name + year + status', '(+ (+ (+ count name) year) status)'],
        ];
    }

    /** @dataProvider trees */
    public function testTree(string $expr, string $tree): void
    {
        $this->assertSame($tree, $this->tree($expr));
    }

    public function testPositionsAreByteOffsets(): void
    {
        $select = (new Parser())->parse('SELECT  a + b FROM t');
        $this->assertInstanceOf(Ast\Select::class, $select);
        $sum = $select->columns[0]->expr;
        $this->assertInstanceOf(Ast\Binary::class, $sum);
        $this->assertSame(8, $sum->pos);
        $this->assertSame(12, $sum->right->pos);
    }

    public function testVariableFields(): void
    {
        $select = (new Parser())->parse('SELECT @@SESSION.sql_mode, @x');
        $this->assertInstanceOf(Ast\Select::class, $select);
        $sys = $select->columns[0]->expr;
        $this->assertInstanceOf(Ast\Variable::class, $sys);
        $this->assertSame(['sql_mode', true, 'SESSION'], [$sys->name, $sys->system, $sys->scope]);
        $user = $select->columns[1]->expr;
        $this->assertInstanceOf(Ast\Variable::class, $user);
        $this->assertSame(['x', false, null], [$user->name, $user->system, $user->scope]);
    }
}
