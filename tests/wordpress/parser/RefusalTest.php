<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\ParseError;
use Berth\Pg\Parser;
use PHPUnit\Framework\TestCase;

/** What the parser refuses: a ParseError naming the offset, the text there and why. */
final class RefusalTest extends TestCase
{
    /** @return array<string, array{0: string, 1: int, 2: string}> sql, offset, part of the reason */
    public static function refusals(): array
    {
        return [
            'unknown statement' => ['FROBNICATE wp_posts', 0, 'unknown statement FROBNICATE'],
            'empty statement' => ['  ', 2, 'a statement must start with a keyword'],
            'unterminated single-quoted string' => ["SELECT 'abc", 7, 'unterminated string'],
            'unterminated string after an escaped quote' => ["SELECT 'abc\\'", 7, 'unterminated string'],
            'unterminated double-quoted string' => ['SELECT "abc', 7, 'unterminated string'],
            'unterminated backtick' => ['SELECT `abc', 7, 'unterminated quoted identifier'],
            'unterminated comment' => ['SELECT 1 /* x', 9, 'unterminated /* comment'],
            'unterminated versioned comment' => ['SELECT 1 /*!40101 x', 9, 'unterminated /*! comment'],
            'garbage after a statement' => ['SELECT 1 FROM t garbage more', 24, 'after the end of the statement'],
            'a second statement' => ['SELECT 1; SELECT 2', 10, 'after the end of the statement'],
            'unbalanced "(": missing ")"' => ['SELECT (1 + 2 FROM t', 14, 'expected ")"'],
            'unbalanced ")": one too many' => ['SELECT (1 + 2)) FROM t', 14, 'after the end of the statement'],
            'unbalanced IN list' => ['SELECT a FROM t WHERE a IN (1, 2', 32, 'expected ")"'],
            'a placeholder never reaches MySQL' => ['SELECT a FROM t WHERE a = ?', 26, 'unexpected character "?"'],
            'reserved word as a column' => ['SELECT select FROM t', 7, 'unexpected keyword SELECT'],
            'missing expression' => ['SELECT a FROM t WHERE', 21, 'the statement ends where an expression was expected'],
            'empty IN list' => ['SELECT a FROM t WHERE a IN ()', 28, 'an empty IN () list'],
            'NOT without a predicate' => ['SELECT a NOT 1', 9, 'expected IN, BETWEEN, LIKE or REGEXP after NOT'],
            'NATURAL JOIN' => ['SELECT a FROM t NATURAL JOIN u', 16, 'NATURAL JOIN is not supported'],
            'window function' => ['SELECT ROW_NUMBER() OVER (ORDER BY a) FROM t', 20, 'window functions'],
            'EXPLAIN SELECT' => ['EXPLAIN SELECT 1', 8, 'EXPLAIN of a statement'],
            'LIMIT expression' => ['SELECT a FROM t LIMIT 1 + 1', 24, 'after the end of the statement'],
            'LIMIT negative' => ['SELECT a FROM t LIMIT -1', 22, 'LIMIT takes whole numbers'],
            'database-qualified INSERT' => ['INSERT INTO wp.wp_options (a) VALUES (1)', 12, 'database-qualified table name'],
            'row count mismatch' => ['INSERT INTO t (a, b) VALUES (1)', 28, 'a row of 1 values for 2 columns'],
            'unknown column type' => ['CREATE TABLE t (a frob)', 18, 'unknown column type frob'],
            'foreign key' => ['CREATE TABLE t (a int, FOREIGN KEY (a) REFERENCES u (b))', 23, 'FOREIGN constraints are not supported'],
            'unknown table option' => ['CREATE TABLE t (a int) PARTITIONED', 23, 'unknown table option PARTITIONED'],
            'unknown SHOW' => ['SHOW FROBS', 5, 'unsupported SHOW FROBS'],
            'unknown ALTER action' => ['ALTER TABLE t DISCARD TABLESPACE', 14, 'unsupported ALTER TABLE action DISCARD'],
            'MATCH AGAINST' => ["SELECT a FROM t WHERE MATCH (a) AGAINST ('x')", 22, 'MATCH ... AGAINST is not supported'],
            'unknown CAST type' => ['SELECT CAST(a AS FROB)', 17, 'unknown CAST type FROB'],
            'ANY subquery' => ['SELECT a FROM t WHERE a = ANY (SELECT b FROM u)', 26, 'ANY (subquery)'],
            'SELECT INTO' => ['SELECT a INTO @x FROM t', 9, 'SELECT ... INTO'],
            'ROLLUP' => ['SELECT a FROM t GROUP BY a WITH ROLLUP', 27, 'WITH ROLLUP'],
            'derived table without alias' => ['SELECT a FROM (SELECT 1 AS a)', 29, 'a derived table needs an alias'],
            'INTERVAL without a unit' => ['SELECT NOW() - INTERVAL 1', 25, 'expected an INTERVAL unit'],
            'TRIM LEADING' => ["SELECT TRIM(LEADING 'x' FROM a)", 12, 'TRIM(LEADING'],
            'START TRANSACTION options' => ['START TRANSACTION READ ONLY', 18, 'START TRANSACTION options'],
            'SET TRANSACTION' => ['SET TRANSACTION ISOLATION LEVEL READ COMMITTED', 4, 'SET TRANSACTION'],
            'charset introducer' => ["SELECT _binary'abc'", 7, 'character set introducers'],
            'national string' => ["SELECT N'abc'", 7, 'character set introducers'],
            'multi-table DELETE with LIMIT' => ['DELETE a FROM t a, u WHERE 1 LIMIT 1', 29, 'LIMIT in a multi-table DELETE'],
        ];
    }

    /** @dataProvider refusals */
    public function testRefused(string $sql, int $offset, string $reason): void
    {
        try {
            (new Parser())->parse($sql);
            $this->fail('parsed: ' . $sql);
        } catch (ParseError $e) {
            $this->assertStringStartsWith(sprintf('cannot parse MySQL at offset %d (near "', $offset), $e->getMessage());
            $this->assertStringContainsString($reason, $e->reason);
            $this->assertSame($offset, $e->offset);
            $this->assertInstanceOf(\RuntimeException::class, $e);
        }
    }

    public function testMessageShowsTheTextNearTheOffset(): void
    {
        try {
            (new Parser())->parse("SELECT a FROM t WHERE a = 'x' ) AND\n b");
            $this->fail('parsed');
        } catch (ParseError $e) {
            $this->assertSame(
                'cannot parse MySQL at offset 30 (near ") AND\n b"): unexpected ")" after the end of the statement',
                $e->getMessage()
            );
        }
    }

    public function testDeepNestingIsRefusedNotACrash(): void
    {
        $parser = new Parser();
        $ok = 'SELECT ' . str_repeat('(', 150) . '1' . str_repeat(')', 150);
        $this->assertSame($ok, $parser->parse($ok)->sql);
        foreach ([
            'SELECT ' . str_repeat('(', 5000) . '1' . str_repeat(')', 5000) => 'expressions nested more than 200 deep',
            str_repeat('(', 5000) . 'SELECT 1' . str_repeat(')', 5000) => 'statements nested more than 200 deep',
            'SELECT * FROM ' . str_repeat('(', 5000) . 't' . str_repeat(')', 5000) => 'table references nested more than 200 deep',
        ] as $sql => $reason) {
            try {
                $parser->parse($sql);
                $this->fail('parsed');
            } catch (ParseError $e) {
                $this->assertSame($reason, $e->reason);
            }
        }
        // Long chains of unary operators are loops, not recursion.
        $this->assertSame('x', $parser->parse('SELECT ' . str_repeat('- ', 10000) . '1 AS x')->columns[0]->alias);
    }

    public function testTheExcerptIsNeverCutInsideACharacter(): void
    {
        try {
            (new Parser())->parse('SELECT 1 AS x garbag ' . str_repeat("\u{e9}", 30));
            $this->fail('parsed');
        } catch (ParseError $e) {
            $this->assertSame(14, $e->offset);
            $this->assertSame(1, preg_match('//u', $e->getMessage()));
            $this->assertStringContainsString('(near "garbag ' . str_repeat("\u{e9}", 16) . '")', $e->getMessage());
        }
    }

    /**
     * Broken input (every cut of real statements, random keyword soup) only ever gives a
     * ParseError: no PHP warning, no other exception.
     */
    public function testBrokenInputGivesOnlyParseErrors(): void
    {
        $inputs = [];
        $corpus = __DIR__ . '/../data/wordpress-6.1.9-queries.jsonl';
        $statements = is_file($corpus) ? array_slice(array_values(array_unique(array_map(
            fn ($line) => json_decode($line, true, 512, JSON_THROW_ON_ERROR)['sql'],
            file($corpus, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES)
        ))), 0, 150) : [];
        $lexer = new \Berth\Pg\Lexer();
        foreach ($statements as $sql) {
            if (strlen($sql) > 3000) {
                continue;
            }
            foreach ($lexer->tokenize($sql) as $t) {
                $inputs[] = substr($sql, 0, $t->pos);
                $inputs[] = substr($sql, 0, $t->end) . ' )';
                $inputs[] = substr($sql, 0, $t->pos) . substr($sql, $t->end);
            }
        }
        $vocabulary = ['SELECT', 'FROM', 'WHERE', '(', ')', ',', 'a', 't.b', '1', "'x'", 'NOT', 'IN', 'AND',
            'OR', '=', '-', '*', 'CASE', 'WHEN', 'THEN', 'END', 'INTERVAL', 'DAY', 'CAST', 'AS', 'SIGNED',
            'LIMIT', 'ORDER', 'BY', 'GROUP', 'JOIN', 'ON', 'LEFT', 'INSERT', 'INTO', 'VALUES', 'UPDATE', 'SET',
            'DELETE', 'IS', 'NULL', 'BETWEEN', 'LIKE', 'ESCAPE', 'EXISTS', 'UNION', 'ALL', 'DISTINCT', 'COUNT',
            '.', '@@x', '@y', '`q`', 'DATE', 'CREATE', 'TABLE', 'KEY', 'PRIMARY', 'ALTER', 'ADD', 'DROP',
            'INDEX', 'SHOW', 'DESCRIBE', ';', 'USE', 'FORCE', 'CONVERT', 'USING', 'BINARY', 'COLLATE', '!',
            '~', '<=>', 'DEFAULT', 'FOR', 'LOCK', 'DUAL'];
        mt_srand(7);
        for ($k = 0; $k < 20000; $k++) {
            $words = [];
            for ($j = mt_rand(1, 12); $j > 0; $j--) {
                $words[] = $vocabulary[mt_rand(0, count($vocabulary) - 1)];
            }
            $inputs[] = implode(' ', $words);
        }
        $parser = new Parser();
        set_error_handler(static function (int $no, string $message): never {
            throw new \ErrorException($message, 0, $no);
        });
        try {
            $parsed = 0;
            foreach ($inputs as $sql) {
                try {
                    $parser->parse($sql);
                    $parsed++;
                } catch (ParseError) {
                }
            }
        } finally {
            restore_error_handler();
        }
        $this->assertGreaterThan(20000, count($inputs));
        $this->assertLessThan(count($inputs), $parsed);
    }

    public function testTheParserIsReusableAfterAnError(): void
    {
        $parser = new Parser();
        try {
            $parser->parse('SELECT (');
        } catch (ParseError) {
        }
        $this->assertSame('SELECT 1', $parser->parse('SELECT 1')->sql);
    }
}
