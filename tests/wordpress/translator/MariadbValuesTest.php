<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Expressions whose values MariaDB 10.11 gave (mariadb_values.json: `SELECT <expr>` run on
 * mariadbd after WordPress's SET NAMES utf8mb4 COLLATE utf8mb4_unicode_520_ci, the mysql
 * client's text for each value): the
 * translation gives the same text on PostgreSQL (the zero date shown as the wpdb layer shows
 * it). Conversions, casts, comparisons and their collation, string, number and date functions,
 * DATE_FORMAT, WEEK in every mode, INTERVAL arithmetic, LIKE's case and accent rules.
 */
final class MariadbValuesTest extends TestCase
{
    public function testExpressionsGiveMariadbsValues(): void
    {
        $db = ProjectSchema::create();
        $cases = json_decode((string) file_get_contents(__DIR__ . '/mariadb_values.json'), true, 8, JSON_THROW_ON_ERROR);
        $differ = [];
        foreach ($cases as ['expr' => $expr, 'mariadb' => $expected]) {
            try {
                $row = $db->query('SELECT ' . $expr)['rows'][0] ?? [];
                $got = array_values($row)[0] ?? null;
            } catch (\Throwable $e) {
                $got = get_class($e) . ': ' . strtok($e->getMessage(), "\n");
            }
            if ($got !== $expected) {
                $differ[] = "SELECT $expr: MariaDB " . json_encode($expected) . ', here ' . json_encode($got);
            }
        }
        $this->assertGreaterThan(150, count($cases));
        $this->assertSame([], $differ);
    }
}
