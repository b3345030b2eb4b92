<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\Ast;
use Berth\Pg\Lexer;
use Berth\Pg\Parser;
use Berth\Pg\Token;
use PHPUnit\Framework\TestCase;

/** An object whose serialized form holds NUL bytes (protected and private properties). */
final class LexerTestSerialized
{
    protected string $a = "it's";
    private string $b = 'x\\y';

    public function b(): string
    {
        return $this->b;
    }
}

/** Tokens: quoting, MySQL string escapes, numbers, variables, comments. */
final class LexerTest extends TestCase
{
    /** The decoded value of the one string literal in SELECT <literal>. */
    private function stringValue(string $literal): string
    {
        $select = (new Parser())->parse('SELECT ' . $literal);
        $this->assertInstanceOf(Ast\Select::class, $select);
        $lit = $select->columns[0]->expr;
        $this->assertInstanceOf(Ast\Literal::class, $lit);
        $this->assertSame('string', $lit->kind);
        return $lit->value;
    }

    public function testMysqlEscapes(): void
    {
        $this->assertSame("a\0b", $this->stringValue("'a\\0b'"));
        $this->assertSame("'\"\x08\n\r\t\x1a\\", $this->stringValue("'\\'\\\"\\b\\n\\r\\t\\Z\\\\'"));
        // \% and \_ keep their backslash (they matter to LIKE), any other \x is x.
        $this->assertSame('\\%\\_', $this->stringValue("'\\%\\_'"));
        $this->assertSame('xyq', $this->stringValue("'\\x\\y\\q'"));
    }

    public function testDoubledQuotesAndDoubleQuotedStrings(): void
    {
        $this->assertSame("it's", $this->stringValue("'it''s'"));
        $this->assertSame('say "hi"', $this->stringValue('"say ""hi"""'));
        $this->assertSame("it's \"x\"", $this->stringValue('"it\'s \\"x\\""'));
        $this->assertSame('', $this->stringValue("''"));
    }

    public function testAdjacentStringsJoin(): void
    {
        $this->assertSame('abc', $this->stringValue("'a' \"b\"\n 'c'"));
    }

    public function testSerializedValueWithNul(): void
    {
        // What esc_sql()/mysqli_real_escape_string make of a serialized object with a
        // protected property: NUL bytes as \0, quotes escaped.
        $value = serialize(new LexerTestSerialized());
        $this->assertStringContainsString("\0", $value);
        $escaped = strtr($value, ["\\" => '\\\\', "\0" => '\\0', "'" => "\\'", '"' => '\\"', "\n" => '\\n', "\r" => '\\r', "\x1a" => '\\Z']);
        $this->assertSame($value, $this->stringValue("'" . $escaped . "'"));
        $this->assertSame(['a' => "x\0y"], unserialize($this->stringValue("'a:1:{s:1:\\\"a\\\";s:3:\\\"x\\0y\\\";}'")));
    }

    public function testZeroDate(): void
    {
        $this->assertSame('0000-00-00 00:00:00', $this->stringValue("'0000-00-00 00:00:00'"));
    }

    public function testBackticks(): void
    {
        $tokens = (new Lexer())->tokenize('`wp_posts`.`a``b` `select`');
        $this->assertSame(Token::QUOTED_IDENT, $tokens[0]->type);
        $this->assertSame('wp_posts', $tokens[0]->value);
        $this->assertSame('a`b', $tokens[2]->value);
        $this->assertSame('select', $tokens[3]->value);
        $this->assertSame(Token::QUOTED_IDENT, $tokens[3]->type);
    }

    public function testNumbersHexAndVariables(): void
    {
        $tokens = (new Lexer())->tokenize("1 1.5 .5 1e3 2E-2 0xFF X'0a' @v @@SESSION.sql_mode 1abc");
        $got = array_map(fn (Token $t) => [$t->type, $t->value], $tokens);
        $this->assertSame([
            [Token::NUMBER, '1'], [Token::NUMBER, '1.5'], [Token::NUMBER, '.5'], [Token::NUMBER, '1e3'],
            [Token::NUMBER, '2E-2'], [Token::HEX, 'FF'], [Token::HEX, '0a'], [Token::USER_VAR, 'v'],
            [Token::SYSTEM_VAR, 'SESSION.sql_mode'], [Token::WORD, '1abc'], [Token::END, ''],
        ], $got);
    }

    public function testCommentsAndVersionedComments(): void
    {
        $sql = "SELECT /* c */ a, -- line\n b # hash\n, /*!40101 c */ FROM t -- end";
        $select = (new Parser())->parse($sql);
        $this->assertInstanceOf(Ast\Select::class, $select);
        $this->assertSame(['a', 'b', 'c'], array_map(fn ($c) => $c->text, $select->columns));
        // "--" without a space after it is two minus signs, as in MySQL.
        $select = (new Parser())->parse('SELECT 1--1');
        $this->assertInstanceOf(Ast\Select::class, $select);
        $this->assertSame('(- 1 (- 1))', \Berth\Pg\Tests\AstDump::expr($select->columns[0]->expr));
        // The LOCK comment WordPress's cron/upgrader locks carry.
        $insert = (new Parser())->parse("INSERT IGNORE INTO `wp_options` ( `option_name`, `option_value`, `autoload` ) VALUES ('x.lock', '1', 'no') /* LOCK */");
        $this->assertInstanceOf(Ast\Insert::class, $insert);
    }

    public function testOffsets(): void
    {
        $tokens = (new Lexer())->tokenize("SELECT 'a' 'b', x");
        $this->assertSame([0, 6], [$tokens[0]->pos, $tokens[0]->end]);
        $this->assertSame([7, 14], [$tokens[1]->pos, $tokens[1]->end]);
        $this->assertSame(16, $tokens[3]->pos);
    }
}
