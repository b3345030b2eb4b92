<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\MysqlError;
use Berth\Pg\Nul;
use Berth\Pg\TranslateError;
use PHPUnit\Framework\TestCase;

/**
 * Statements over WordPress-shaped tables with what MariaDB 10.11 answered to each
 * (mariadb_statements.json, recorded with mysqli under WordPress's sql_mode and
 * utf8mb4_unicode_520_ci): rows (in order where the statement orders them), affected rows and
 * insert ids, or an error. Replayed in order through the translator on PostgreSQL, each must
 * answer the same: upserts, INSERT IGNORE, REPLACE, changed-rows UPDATE, case-insensitive
 * order and comparison, NULL order, grouping with ungrouped columns, DISTINCT ordered outside
 * the select list, joins, subqueries, unions, FOUND_ROWS, zero dates, multi-table UPDATE and
 * DELETE, ORDER BY/LIMIT on UPDATE and DELETE, explicit ids, non-strict conversions, and the
 * ALTER TABLE forms of WordPress's upgrades with DESCRIBE/SHOW INDEX after them.
 */
final class MariadbStatementsTest extends TestCase
{
    public function testStatementsAnswerAsMariadb(): void
    {
        $db = ProjectSchema::create();
        $cases = json_decode((string) file_get_contents(__DIR__ . '/mariadb_statements.json'), true, 64, JSON_THROW_ON_ERROR);
        $differ = [];
        foreach ($cases as $case) {
            $sql = $case['sql'];
            $expected = $case['mariadb'];
            try {
                $r = $db->query($sql);
                $t = $r['translation'];
                if ($t->kind === 'select' || $t->kind === 'answer') {
                    $got = ['rows' => $r['values']];
                } else {
                    $got = ['affected' => $r['affected'], 'id' => $r['insertId'] === null ? null : (int) $r['insertId']];
                }
            } catch (MysqlError | TranslateError | \RuntimeException $e) {
                $got = ['error' => $e->getMessage()];
            }
            if (preg_match('/^\s*SHOW\s+(INDEX|INDEXES|KEYS)\b/i', $sql) && isset($got['rows'])) {
                // Cardinality is a statistic (the file holds null for it): answers never ask PostgreSQL.
                foreach ($got['rows'] as &$row) {
                    $row[6] = null;
                }
                unset($row);
            }
            if (preg_match('/^\s*(ALTER|CREATE|DROP|TRUNCATE)\b/i', $sql) && isset($got['affected'])) {
                $got = ['affected' => 0, 'id' => 0];   // MariaDB counts the rows a table rebuild copied
            }
            if (isset($expected['rows'], $got['rows']) && !preg_match('/ORDER BY/i', $sql)) {
                sort($expected['rows']);
                sort($got['rows']);
            }
            if (isset($expected['affected'], $got['affected'])) {
                // insert_id is MySQL's only where an INSERT/REPLACE gave one; elsewhere it keeps its last value.
                if (!preg_match('/^\s*(INSERT|REPLACE)/i', $sql) || $got['id'] === null) {
                    $got['id'] = $expected['id'];
                }
            }
            $same = isset($expected['error']) ? isset($got['error']) : $expected == $got;
            if (!$same) {
                $differ[] = substr(preg_replace('/\s+/', ' ', $sql), 0, 160) . "\n  MariaDB " . json_encode($expected)
                    . "\n  here    " . json_encode($got);
            }
        }
        $this->assertGreaterThan(80, count($cases));
        $this->assertSame([], $differ);
    }
}
