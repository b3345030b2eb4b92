<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\Ast;
use Berth\Pg\Parser;
use Berth\Pg\Tests\AstDump;
use PHPUnit\Framework\TestCase;

/**
 * WordPress's real schema: every CREATE TABLE wp_get_db_schema() produces (single site and
 * multisite, read from the installed package by wp_schema_sql.php), and the ALTER TABLE forms
 * dbDelta() derives from them for an existing table.
 */
final class SchemaTest extends TestCase
{
    private const WORDPRESS = '/usr/share/wordpress';

    /** @return string[] */
    private static function schemaStatements(): array
    {
        static $statements = null;
        if ($statements === null) {
            $out = shell_exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg(__DIR__ . '/wp_schema_sql.php') . ' ' . escapeshellarg(self::WORDPRESS));
            $statements = json_decode((string) $out, true, 512, JSON_THROW_ON_ERROR);
        }
        return $statements;
    }

    protected function setUp(): void
    {
        if (!is_file(self::WORDPRESS . '/wp-admin/includes/schema.php')) {
            $this->markTestSkipped('WordPress is not installed in ' . self::WORDPRESS);
        }
    }

    public function testEveryCreateTableParses(): void
    {
        $statements = self::schemaStatements();
        $this->assertCount(19, $statements);
        $tables = [];
        foreach ($statements as $sql) {
            $create = (new Parser())->parse($sql);
            $this->assertInstanceOf(Ast\CreateTable::class, $create);
            $this->assertSame(['CHARSET' => 'utf8mb4', 'COLLATE' => 'utf8mb4_unicode_520_ci'], $create->options);
            $this->assertNotEmpty($create->columns);
            $this->assertSame('PRIMARY', $create->indexes[0]->kind);
            $tables[] = $create->name;
        }
        $this->assertContains('wp_posts', $tables);
        $this->assertContains('wp_signups', $tables);
    }

    public function testPostsTableTree(): void
    {
        $posts = null;
        foreach (self::schemaStatements() as $sql) {
            $create = (new Parser())->parse($sql);
            if ($create instanceof Ast\CreateTable && $create->name === 'wp_posts') {
                $posts = $create;
            }
        }
        $this->assertNotNull($posts);
        $id = $posts->columns[0];
        $this->assertSame(
            ['ID', 'bigint', 20, true, false, true, null],
            [$id->name, $id->type, $id->length, $id->unsigned, $id->nullable, $id->autoIncrement, $id->default]
        );
        $date = $posts->columns[2];
        $this->assertSame(['post_date', 'datetime', "'0000-00-00 00:00:00'"], [$date->name, $date->type, AstDump::expr($date->default)]);
        $content = $posts->columns[4];
        $this->assertSame(['longtext', false, null], [$content->type, $content->nullable, $content->default]);
        $this->assertSame(
            [
                ['PRIMARY', null, [['name' => 'ID', 'length' => null, 'desc' => false]]],
                ['INDEX', 'post_name', [['name' => 'post_name', 'length' => 191, 'desc' => false]]],
                ['INDEX', 'type_status_date', array_map(fn ($c) => ['name' => $c, 'length' => null, 'desc' => false], ['post_type', 'post_status', 'post_date', 'ID'])],
                ['INDEX', 'post_parent', [['name' => 'post_parent', 'length' => null, 'desc' => false]]],
                ['INDEX', 'post_author', [['name' => 'post_author', 'length' => null, 'desc' => false]]],
            ],
            array_map(fn ($i) => [$i->kind, $i->name, $i->columns], $posts->indexes)
        );
    }

    /** dbDelta() on an existing table: ADD COLUMN / CHANGE COLUMN with the CREATE's own lines, ADD <index>. */
    public function testDbDeltaAlterForms(): void
    {
        $count = 0;
        foreach (self::schemaStatements() as $sql) {
            $create = (new Parser())->parse($sql);
            $this->assertInstanceOf(Ast\CreateTable::class, $create);
            $body = substr($sql, strpos($sql, '(') + 1, strrpos($sql, ')') - strpos($sql, '(') - 1);
            foreach (explode("\n", $body) as $line) {
                $line = trim(rtrim(trim($line), ','));
                if ($line === '' || preg_match('/^(PRIMARY|UNIQUE|KEY|INDEX|FULLTEXT)\b/', $line)) {
                    continue;
                }
                $column = strtok($line, ' ');
                foreach (["ALTER TABLE {$create->name} ADD COLUMN $line", "ALTER TABLE {$create->name} CHANGE COLUMN `$column` $line"] as $alter) {
                    $a = (new Parser())->parse($alter);
                    $this->assertInstanceOf(Ast\AlterTable::class, $a);
                    $this->assertSame($column, $a->actions[0]->column->name, $alter);
                    $count++;
                }
            }
            foreach ($create->indexes as $index) {
                $parts = implode(',', array_map(fn ($c) => '`' . $c['name'] . '`' . ($c['length'] !== null ? '(' . $c['length'] . ')' : ''), $index->columns));
                $text = match ($index->kind) {
                    'PRIMARY' => "PRIMARY KEY  ($parts)",
                    'UNIQUE' => "UNIQUE KEY `{$index->name}` ($parts)",
                    default => "KEY `{$index->name}` ($parts)",
                };
                $a = (new Parser())->parse("ALTER TABLE {$create->name} ADD $text");
                $this->assertInstanceOf(Ast\AlterTable::class, $a);
                $this->assertSame([$index->kind, $index->name, $index->columns], [$a->actions[0]->index->kind, $a->actions[0]->index->name, $a->actions[0]->index->columns]);
                $count++;
            }
        }
        $this->assertGreaterThan(200, $count);
    }
}
