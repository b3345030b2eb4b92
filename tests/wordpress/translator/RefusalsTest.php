<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\MysqlError;
use Berth\Pg\TranslateError;
use PHPUnit\Framework\TestCase;

/**
 * What the translator refuses: with MySQL's own error where MySQL would refuse too (unknown
 * table or column), with TranslateError for what it does not support; never passed through,
 * and nothing in the database changes.
 */
final class RefusalsTest extends TestCase
{
    private static ProjectSchema $db;

    public static function setUpBeforeClass(): void
    {
        self::$db = ProjectSchema::create();
        self::$db->query("CREATE TABLE wp_options ( option_id bigint(20) unsigned NOT NULL auto_increment, option_name varchar(191) NOT NULL default '', option_value longtext NOT NULL, autoload varchar(20) NOT NULL default 'yes', PRIMARY KEY (option_id), UNIQUE KEY option_name (option_name) )");
        self::$db->query("INSERT INTO wp_options (option_name, option_value) VALUES ('a', '1'), ('b', '2')");
    }

    /** @return array<string, array{0: string, 1: class-string, 2: ?int, 3: string}> */
    public static function refusals(): array
    {
        return [
            'unknown table' => ["SELECT option_value FROM wp_nothing WHERE option_name = 'x'", MysqlError::class, 1146, "Table 'wp.wp_nothing' doesn't exist"],
            'unknown table in DESCRIBE' => ['DESCRIBE wp_nothing;', MysqlError::class, 1146, "Table 'wp.wp_nothing' doesn't exist"],
            'unknown table in INSERT' => ["INSERT INTO wp_nothing (a) VALUES ('x')", MysqlError::class, 1146, "Table 'wp.wp_nothing' doesn't exist"],
            'unknown column in the select list' => ['SELECT nothing FROM wp_options', MysqlError::class, 1054, "Unknown column 'nothing' in 'field list'"],
            'unknown column in WHERE' => ["DELETE FROM wp_options WHERE nothing = 'a'", MysqlError::class, 1054, "Unknown column 'nothing' in 'where clause'"],
            'unknown column in SET' => ["UPDATE wp_options SET nothing = 'x' WHERE option_name = 'a'", MysqlError::class, 1054, "Unknown column 'nothing' in 'field list'"],
            'unknown column in INSERT' => ["INSERT INTO wp_options (option_name, nothing) VALUES ('c', 'x')", MysqlError::class, 1054, "Unknown column 'nothing' in 'field list'"],
            'unknown qualified column' => ['SELECT o.nothing FROM wp_options o', MysqlError::class, 1054, "Unknown column 'o.nothing' in 'field list'"],
            'unknown function' => ['SELECT NO_SUCH_FUNCTION(option_value) FROM wp_options', TranslateError::class, null, 'cannot translate MySQL: the function NO_SUCH_FUNCTION()'],
            'unknown function in an UPDATE' => ["UPDATE wp_options SET option_value = SOUNDEX(option_value) WHERE option_name = 'a'", TranslateError::class, null, 'cannot translate MySQL: the function SOUNDEX()'],
            'FULLTEXT index' => ['ALTER TABLE wp_options ADD FULLTEXT INDEX ft (option_value)', TranslateError::class, null, 'cannot translate MySQL: FULLTEXT indexes'],
            'duplicate table' => ['CREATE TABLE wp_options (id int)', MysqlError::class, 1050, "Table 'wp_options' already exists"],
            'drop of a missing index' => ['ALTER TABLE wp_options DROP INDEX nothing', MysqlError::class, 1091, "Can't DROP INDEX `nothing`; check that it exists"],
            'unknown system variable' => ['SELECT @@nothing_at_all', MysqlError::class, 1193, "Unknown system variable 'nothing_at_all'"],
            // Found by the mysql_parse fuzz target: these threw a JsonException from the catalogue.
            'a table name that is not UTF-8' => ["CREATE TABLE wp_\xff (id int)", TranslateError::class, null, 'cannot translate MySQL: a name is not valid UTF-8 (PostgreSQL names hold UTF-8 only)'],
            'a comment that is not UTF-8' => ["CREATE TABLE wp_c (id int COMMENT '\xff')", TranslateError::class, null, 'cannot translate MySQL: the table definition is not valid UTF-8 (Malformed UTF-8 characters, possibly incorrectly encoded)'],
        ];
    }

    /** @dataProvider refusals */
    public function testRefusedWithAClearMessageAndNothingChanges(string $mysql, string $class, ?int $code, string $message): void
    {
        $before = $this->snapshot();
        try {
            self::$db->query($mysql);
            $this->fail('translated: ' . $mysql);
        } catch (MysqlError|TranslateError $e) {
            $this->assertInstanceOf($class, $e);
            $this->assertSame($message, $e->getMessage());
            if ($code !== null) {
                $this->assertSame($code, $e->getCode());
            }
        }
        $this->assertSame($before, $this->snapshot(), 'the database is as it was');
        $this->assertSame(['wp_options'], self::$db->translator->catalog()->tableNames(), 'the catalogue too');
    }

    public function testUnparsableTextIsATranslateErrorNamingTheOffset(): void
    {
        $this->expectException(TranslateError::class);
        $this->expectExceptionMessageMatches('/^cannot parse MySQL at offset \d+/');
        self::$db->query('SELEC option_value FROM wp_options');
    }

    private function snapshot(): array
    {
        return [
            pg_fetch_all(self::$db->exec('SELECT option_name, option_value FROM wp_options ORDER BY option_id')),
            pg_fetch_all(self::$db->exec('SELECT name, definition FROM berth_mysql_catalog ORDER BY name')),
            pg_fetch_all(self::$db->exec("SELECT indexname FROM pg_indexes WHERE tablename = 'wp_options' ORDER BY 1")),
        ];
    }
}
