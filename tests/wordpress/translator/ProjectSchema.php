<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\Catalog;
use Berth\Pg\Nul;
use Berth\Pg\Translation;
use Berth\Pg\Translator;

/**
 * A project's own schema as the translator meets it: a LOGIN role that is no superuser and
 * owns one schema (its search_path), made by the cluster's superuser from DATABASE_URL
 * (tests/support/with_postgres.sh). The tests connect as that role, run
 * Translator::setupSql() there and run translations the way the wpdb layer does: the
 * statements in order (atomic ones in one transaction), rows and affected rows read by the
 * Translation's rules, values shown as wpdb shows them (NUL bytes and zero dates back).
 */
final class ProjectSchema
{
    private static int $made = 0;

    public readonly \PgSql\Connection $pg;
    public Translator $translator;

    public function __construct(public readonly string $role)
    {
        $this->pg = pg_connect(self::conninfo($role), PGSQL_CONNECT_FORCE_NEW);
        foreach (Translator::setupSql() as $sql) {
            $this->exec($sql);
        }
        $this->translator = new Translator(Catalog::fromRows(pg_fetch_all($this->exec(Catalog::loadSql())) ?: []), 'wp');
    }

    public static function create(): self
    {
        $admin = pg_connect(self::conninfo(null), PGSQL_CONNECT_FORCE_NEW);
        $role = sprintf('p_tr%d_%d', getmypid(), ++self::$made);
        foreach ([
            "CREATE ROLE $role LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE",
            "CREATE SCHEMA $role AUTHORIZATION $role",
            "ALTER ROLE $role SET search_path = $role",
        ] as $sql) {
            if (pg_query($admin, $sql) === false) {
                throw new \RuntimeException(pg_last_error($admin));
            }
        }
        pg_close($admin);
        return new self($role);
    }

    public function exec(string $sql): \PgSql\Result
    {
        $result = @pg_query($this->pg, $sql);
        if ($result === false) {
            throw new \RuntimeException(pg_last_error($this->pg) . "\n" . $sql);
        }
        return $result;
    }

    /**
     * Translates and runs one MySQL statement.
     *
     * @return array{rows: array<int, array<string, ?string>>, values: array<int, array<int, ?string>>, affected: int, insertId: ?string, translation: Translation}
     */
    public function query(string $mysql): array
    {
        $t = $this->translator->translate($mysql);
        if ($t->kind === 'answer') {
            $rows = array_map(fn (array $row): array => array_combine($t->answer['columns'], $row), $t->answer['rows']);
            return ['rows' => $rows, 'values' => $t->answer['rows'], 'affected' => 0, 'insertId' => null, 'translation' => $t];
        }
        $result = $this->runAll($t);
        $rows = [];
        $values = [];
        $affected = 0;
        $insertId = null;
        if ($result !== null) {
            $fetched = pg_fetch_all($result) ?: [];
            $types = [];
            for ($i = 0, $n = pg_num_fields($result); $i < $n; $i++) {
                $types[pg_field_name($result, $i)] = pg_field_type($result, $i);
            }
            foreach (pg_fetch_all($result, PGSQL_NUM) ?: [] as $row) {
                foreach ($row as $i => $v) {
                    if ($v === '-infinity') {
                        $row[$i] = pg_field_type($result, $i) === 'date' ? '0000-00-00' : '0000-00-00 00:00:00';
                    } elseif ($v !== null) {
                        $row[$i] = Nul::decode($v);
                    }
                }
                $values[] = $row;
            }
            foreach ($fetched as $row) {
                // As the wpdb layer shows values: NUL bytes back, the zero date back.
                foreach ($row as $name => $v) {
                    if ($v === '-infinity') {
                        $row[$name] = ($types[$name] ?? '') === 'date' ? '0000-00-00' : '0000-00-00 00:00:00';
                    } elseif ($v !== null) {
                        $row[$name] = Nul::decode($v);
                    }
                }
                $rows[] = $row;
            }
            if ($t->affected === 'upsert' || $t->affected === 'replace') {
                foreach ($fetched as $row) {
                    $affected += $row['__berth_inserted'] === 't' ? 1 : 2;
                }
            } elseif ($t->kind !== 'ddl') {
                $affected = pg_affected_rows($result);   // DDL: MySQL reports 0 rows
            }
            if ($t->insertIdColumn !== null && $fetched !== []) {
                $insertId = $fetched[0][$t->insertIdColumn];
            }
        }
        return ['rows' => $rows, 'values' => $values, 'affected' => $affected, 'insertId' => $insertId, 'translation' => $t];
    }

    /** Runs a translation's statements (atomic ones all-or-nothing); answers the last result. */
    public function runAll(Translation $t): ?\PgSql\Result
    {
        $last = null;
        if ($t->atomic) {
            $this->exec('BEGIN');
        }
        try {
            foreach ($t->sql as $sql) {
                $last = $this->exec($sql);
            }
        } catch (\RuntimeException $e) {
            if ($t->atomic) {
                $this->exec('ROLLBACK');
            }
            throw $e;
        }
        if ($t->atomic) {
            $this->exec('COMMIT');
        }
        return $last;
    }

    private static function conninfo(?string $role): string
    {
        $url = getenv('DATABASE_URL');
        if ($url === false || $url === '') {
            throw new \RuntimeException('DATABASE_URL is not set: run the tests under tests/support/with_postgres.sh.');
        }
        $u = parse_url($url);
        return sprintf(
            "host=%s port=%d dbname=%s user=%s",
            $u['host'],
            $u['port'] ?? 5432,
            ltrim($u['path'] ?? '/test', '/'),
            $role ?? ($u['user'] ?? 'berth')
        );
    }
}
