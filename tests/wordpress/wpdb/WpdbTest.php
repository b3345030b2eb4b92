<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\Wpdb;
use PHPUnit\Framework\TestCase;

/**
 * Berth\Pg\Wpdb against a real PostgreSQL and the real translator, connected as a project's
 * own role: what WordPress reads back must have mysqli's shape.
 */
final class WpdbTest extends TestCase
{
    private const TABLE = "CREATE TABLE t_items (
        id bigint(20) unsigned NOT NULL auto_increment,
        name varchar(20) NOT NULL default '',
        body longtext NOT NULL,
        note text NULL,
        amount int(11) NOT NULL default '0',
        created datetime NOT NULL default '0000-00-00 00:00:00',
        PRIMARY KEY  (id),
        UNIQUE KEY name (name)
    ) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci";

    use ProjectDatabaseCase;

    private Wpdb $wpdb;

    protected function setUp(): void
    {
        $this->openProject();
        $this->wpdb = $this->connect();
        $this->assertNotFalse($this->wpdb->query(self::TABLE), $this->wpdb->last_error);
    }

    protected function tearDown(): void
    {
        $this->wpdb->close();
        $this->closeProject();
    }

    private function connect(): Wpdb
    {
        return $this->connectWpdb();
    }

    public function testConnectsAsTheProjectRoleAndSetsUpItsSchemaOnce(): void
    {
        $inspect = $this->database->inspect();
        $users = pg_fetch_all_columns(pg_query($inspect, "SELECT usename FROM pg_stat_activity WHERE application_name = 'wpdb_test'"));
        $this->assertSame([$this->database->name], $users, 'the URL\'s user, password and parameters reach libpq');
        $owner = pg_fetch_result(pg_query($inspect, "SELECT tableowner FROM pg_tables WHERE tablename = 'berth_mysql_catalog'"), 0, 0);
        $this->assertSame($this->database->name, $owner);

        // A new version of the support functions is installed on the next connect of a new
        // backend, once (a kept backend that checked does not check again: PersistentConnectionTest).
        pg_query($inspect, "COMMENT ON TABLE berth_mysql_support IS 'Berth: MySQL support for WordPress installed at version 0'");
        $this->wpdb->close();
        pg_query($inspect, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wpdb_test'");
        $second = $this->connect();
        $this->assertSame(\Berth\Pg\Translator::SUPPORT_VERSION, \Berth\Pg\SupportSchema::installedVersion($this->executorOf($second)));
        $second->close();
        $this->wpdb = $this->connect();
        $this->assertSame('', trim((string) file_get_contents($this->log)));
    }

    public function testRowsComeBackAsMysqliGivesThem(): void
    {
        $this->assertSame(1, $this->wpdb->query("INSERT INTO t_items (name, body, amount, created) VALUES ('a', 'x', 5, '2024-02-03 04:05:06')"));
        $this->assertSame(1, $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('b', 'y')"));

        $rows = $this->wpdb->get_results('SELECT * FROM t_items ORDER BY id');
        $this->assertSame(['id', 'name', 'body', 'note', 'amount', 'created'], $this->wpdb->get_col_info('name'));
        $this->assertSame(2, $this->wpdb->num_rows);
        $this->assertCount(2, $rows);
        $this->assertEquals((object) [
            'id' => '1', 'name' => 'a', 'body' => 'x', 'note' => null, 'amount' => '5', 'created' => '2024-02-03 04:05:06',
        ], $rows[0]);
        foreach ((array) $rows[0] as $column => $value) {
            $this->assertTrue($value === null || is_string($value), "$column is a string or null");
        }
        // MySQL's zero date survives the trip (PostgreSQL keeps it as -infinity).
        $this->assertSame('0000-00-00 00:00:00', $rows[1]->created);
        $this->assertSame('1', $this->wpdb->get_var('SELECT COUNT(*) FROM t_items WHERE amount = 5'));
        $this->assertSame('1', $this->wpdb->get_var("SELECT name = 'A' FROM t_items WHERE id = 1"));

        $this->assertSame(['a', 'b'], $this->wpdb->get_col('SELECT name FROM t_items ORDER BY name'));
        $this->assertSame(['id' => '2', 'name' => 'b'], $this->wpdb->get_row("SELECT id, name FROM t_items WHERE name = 'b'", ARRAY_A));
    }

    public function testColumnInfoIsShapedLikeMysqliFields(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('long name', 'x')");
        $this->wpdb->get_results('SELECT id, name, created FROM t_items');
        $this->assertSame(['id', 'name', 'created'], $this->wpdb->get_col_info('name'));
        $this->assertSame(['t_items', 't_items', 't_items'], $this->wpdb->get_col_info('table'));
        $this->assertSame(9, $this->wpdb->get_col_info('max_length', 1));
        $field = $this->wpdb->col_info[2];
        foreach (['name', 'orgname', 'table', 'orgtable', 'def', 'db', 'catalog', 'max_length', 'length', 'charsetnr', 'flags', 'type', 'decimals'] as $property) {
            $this->assertTrue(property_exists($field, $property), "a field object has $property");
        }
        $this->assertSame(12, $field->type, 'a datetime is MYSQLI_TYPE_DATETIME');
    }

    public function testInsertIdIsTheFirstRowOfTheLastInsert(): void
    {
        $this->wpdb->insert('t_items', ['name' => 'one', 'body' => '']);
        $this->assertSame(1, $this->wpdb->insert_id);
        $this->assertSame(3, $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('two', ''), ('three', ''), ('four', '')"));
        $this->assertSame(2, $this->wpdb->insert_id, 'MySQL answers the first row of a multi-row insert');
        $this->wpdb->query('CREATE TABLE t_plain (k varchar(10) NOT NULL, PRIMARY KEY (k))');
        $this->wpdb->insert('t_plain', ['k' => 'x']);
        $this->assertSame(0, $this->wpdb->insert_id, 'no AUTO_INCREMENT: 0, as mysqli_insert_id');
        $this->assertFalse($this->wpdb->insert('t_items', ['name' => 'one', 'body' => '']));
        $this->assertSame(0, $this->wpdb->insert_id, 'a failed insert clears insert_id');
    }

    public function testRowsAffectedFollowMysql(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body, amount) VALUES ('a', '', 1), ('b', '', 2), ('c', '', 2)");
        $this->assertSame(1, $this->wpdb->query('UPDATE t_items SET amount = 2 WHERE amount >= 1'), 'unchanged rows are not counted');
        $this->assertSame(0, $this->wpdb->update('t_items', ['amount' => 2], ['name' => 'a']));
        $this->assertSame(1, $this->wpdb->update('t_items', ['amount' => 7], ['name' => 'a']));

        $upsert = "INSERT INTO t_items (name, body, amount) VALUES (%s, '', %d) ON DUPLICATE KEY UPDATE amount = VALUES(amount)";
        $this->assertSame(1, $this->wpdb->query($this->wpdb->prepare($upsert, 'd', 4)), 'inserted: 1');
        $this->assertSame(2, $this->wpdb->query($this->wpdb->prepare($upsert, 'd', 5)), 'updated: 2');
        $this->assertSame(0, $this->wpdb->query($this->wpdb->prepare($upsert, 'd', 5)), 'unchanged: 0');

        $this->assertSame(1, $this->wpdb->replace('t_items', ['name' => 'e', 'body' => 'new']));
        $this->assertSame(2, $this->wpdb->replace('t_items', ['id' => 1, 'name' => 'a', 'body' => 'replaced']));
        $this->assertSame('replaced', $this->wpdb->get_var('SELECT body FROM t_items WHERE id = 1'));

        $this->assertSame(2, $this->wpdb->query("DELETE FROM t_items WHERE amount = 2"));
        $this->assertSame(0, $this->wpdb->delete('t_items', ['name' => 'nobody']));
    }

    /** @return array<string,array{string}> */
    public function awkwardValues(): array
    {
        $object = new \ArrayObject(['k' => "v"]);
        return [
            'quotes' => ["it's a \"quoted\" value, isn''t it"],
            'backslashes' => ['C:\\path\\to\\file \\n is not a newline \\\\ \\\''],
            'control characters' => ["line\nbreak\r\ttab\x1a ctrl-z"],
            'NUL in a serialized value' => [serialize(['private' => new SerializedWithNul()])],
            'multibyte' => ['日本語のテキスト, emoji 😀🎉, Ünïcödé, ǅ'],
            'percent and placeholders' => ['100% of %s and %d {placeholder}'],
            'serialized object' => [serialize($object)],
        ];
    }

    /** @dataProvider awkwardValues */
    public function testValuesRoundTripThroughEscaping(string $value): void
    {
        $this->assertSame(1, $this->wpdb->insert('t_items', ['name' => 'v', 'body' => $value]));
        $this->assertSame($value, $this->wpdb->get_var("SELECT body FROM t_items WHERE name = 'v'"));
        $this->assertSame($value, $this->wpdb->get_var($this->wpdb->prepare('SELECT body FROM t_items WHERE body = %s', $value)));
        $this->assertSame(1, $this->wpdb->query("UPDATE t_items SET body = '" . $this->wpdb->_escape($value . '!') . "' WHERE name = 'v'"));
        $this->assertSame($value . '!', $this->wpdb->get_var("SELECT body FROM t_items WHERE name = 'v'"));
    }

    /**
     * Literals are written with only quotes doubled. A tenant that turned
     * standard_conforming_strings off for its role would otherwise make a backslash before a
     * quote end the literal early: the value would be cut, or worse, run as SQL.
     */
    public function testLiteralsStaySafeWhenTheRoleTurnsStandardStringsOff(): void
    {
        $this->wpdb->close();
        $inspect = $this->database->inspect();
        pg_query($inspect, 'ALTER ROLE ' . $this->database->name . ' SET standard_conforming_strings = off');
        // The role's settings reach a new backend only: end the kept one.
        pg_query($inspect, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wpdb_test'");
        $this->wpdb = $this->connect();
        $value = "tail \\' ; DELETE FROM t_items; -- and a quote ' here";
        $this->assertSame(1, $this->wpdb->insert('t_items', ['name' => 'v', 'body' => $value]));
        $this->assertSame($value, $this->wpdb->get_var("SELECT body FROM t_items WHERE name = 'v'"));
    }

    public function testEscapingIsMysqls(): void
    {
        $this->assertSame("a\\0b\\nc\\rd\\\\e\\'f\\\"g\\Zh", $this->wpdb->_real_escape("a\0b\nc\rd\\e'f\"g\x1ah"));
        $this->assertSame('', $this->wpdb->_real_escape(['not', 'scalar']));
        $this->assertSame('12', $this->wpdb->_real_escape(12));
        // WordPress's placeholder escape stays: a % is hidden until the query filter runs.
        $this->assertStringNotContainsString('%', $this->wpdb->_real_escape('50%'));
        $this->assertSame('50%', $this->wpdb->remove_placeholder_escape($this->wpdb->_real_escape('50%')));
    }

    public function testAnErrorInsideATransactionFailsOnlyThatStatement(): void
    {
        $this->wpdb->query('START TRANSACTION');
        $this->assertSame(1, $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', '')"));
        $this->wpdb->suppress_errors();
        $this->assertFalse($this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', 'again')"));
        $this->assertSame("Duplicate entry 'a' for key 'name'", $this->wpdb->last_error);
        $this->assertSame(1, $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('b', '')"));
        $this->wpdb->query('COMMIT');
        $this->assertSame(['a', 'b'], $this->wpdb->get_col('SELECT name FROM t_items ORDER BY name'));

        $this->wpdb->query('START TRANSACTION');
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('c', '')");
        $this->wpdb->query('ROLLBACK');
        $this->assertSame('2', $this->wpdb->get_var('SELECT COUNT(*) FROM t_items'));
    }

    public function testMysqlErrorTextsThatCoreReadsBack(): void
    {
        $this->wpdb->suppress_errors();
        $this->assertNull($this->wpdb->get_var("SELECT option_value FROM wp_options WHERE option_name = 'siteurl'"));
        $this->assertSame("Table 'wp.wp_options' doesn't exist", $this->wpdb->last_error);
        $this->assertSame([], $this->wpdb->get_results('DESCRIBE wp_options;'));
        $this->assertSame("Table 'wp.wp_options' doesn't exist", $this->wpdb->last_error);
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', '')");
        $this->assertFalse($this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', '')"));
        $this->assertSame("Duplicate entry 'a' for key 'name'", $this->wpdb->last_error);
        $this->wpdb->query('SELECT 1');
        $this->assertSame('', $this->wpdb->last_error, 'a later success clears it');
    }

    public function testDuplicateKeysAreNamedAsMysqlNamesThem(): void
    {
        $this->wpdb->suppress_errors();
        $this->wpdb->query("INSERT INTO t_items (id, name, body) VALUES (7, 'a', '')");
        $this->assertFalse($this->wpdb->query("INSERT INTO t_items (id, name, body) VALUES (7, 'b', '')"));
        $this->assertSame("Duplicate entry '7' for key 'PRIMARY'", $this->wpdb->last_error);
        $this->wpdb->query('CREATE TABLE t_pair (a varchar(10) NOT NULL, b int NOT NULL, UNIQUE KEY pair_of_things (a, b))');
        $this->wpdb->query("INSERT INTO t_pair (a, b) VALUES ('x', 1)");
        $this->assertFalse($this->wpdb->query("INSERT INTO t_pair (a, b) VALUES ('x', 1)"));
        $this->assertSame("Duplicate entry 'x-1' for key 'pair_of_things'", $this->wpdb->last_error);
    }

    public function testDdlThatFailsChangesNeitherTheTableNorTheCatalogue(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body, amount) VALUES ('a', '', 1), ('b', '', 1)");
        $this->wpdb->suppress_errors();
        // The unique key cannot be built over two equal amounts: the added column goes too.
        $this->assertFalse($this->wpdb->query('ALTER TABLE t_items ADD COLUMN extra int NOT NULL DEFAULT 0, ADD UNIQUE KEY amount (amount)'));
        $this->assertStringStartsWith('Duplicate entry', $this->wpdb->last_error);
        $this->assertNotContains('extra', $this->wpdb->get_col('DESCRIBE t_items'));
        $this->assertSame('0', pg_fetch_result(pg_query($this->database->inspect(), "SELECT count(*) FROM information_schema.columns WHERE table_name = 't_items' AND column_name = 'extra'"), 0, 0));
        $this->assertNotFalse($this->wpdb->query('ALTER TABLE t_items ADD COLUMN extra int NOT NULL DEFAULT 0'), $this->wpdb->last_error);
        $this->assertContains('extra', $this->wpdb->get_col('DESCRIBE t_items'));
        $this->assertSame('0', $this->wpdb->get_var("SELECT extra FROM t_items WHERE name = 'a'"));
    }

    public function testReconnectsWhenTheServerDroppedTheConnection(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', '')");
        pg_query($this->database->inspect(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wpdb_test'");
        $this->assertSame('a', $this->wpdb->get_var('SELECT name FROM t_items'));
        $this->assertSame('', $this->wpdb->last_error);
    }

    public function testLogsSlowStatementsAndNeverASuccess(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', '')");
        $this->wpdb->get_results('SELECT * FROM t_items');
        $this->assertSame('', trim((string) file_get_contents($this->log)), 'successes are not logged');
        putenv('BERTH_SLOW_QUERY_MS=0');
        try {
            $this->wpdb->get_var("SELECT name FROM t_items\n WHERE name = 'a'");
        } finally {
            putenv('BERTH_SLOW_QUERY_MS');
        }
        $this->assertMatchesRegularExpression(
            "/WordPress database slow query \\(\\d+ ms\\): SELECT name FROM t_items WHERE name = 'a'\n\$/",
            (string) file_get_contents($this->log)
        );
    }

    public function testAnswersComeBackAsRowsToo(): void
    {
        $columns = $this->wpdb->get_results('DESCRIBE t_items');
        $this->assertSame(6, $this->wpdb->num_rows);
        $this->assertSame('id', $columns[0]->Field);
        $this->assertSame('bigint(20) unsigned', $columns[0]->Type);
        $this->assertSame('PRI', $columns[0]->Key);
        $this->assertSame(['Field', 'Type', 'Null', 'Key', 'Default', 'Extra'], $this->wpdb->get_col_info('name'));
        $this->assertSame(['t_items'], $this->wpdb->get_col("SHOW TABLES LIKE 't\\_%'"));
        $this->assertSame('10.11.6-MariaDB', $this->wpdb->get_var('SELECT VERSION()'));
        $this->assertSame('10.11.6-MariaDB', $this->wpdb->db_server_info());
    }

    public function testInvalidUtf8IsRefusedAsCoreRefusesIt(): void
    {
        $this->wpdb->suppress_errors();
        $this->assertFalse($this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('x', 'a\xC3b')"));
        $this->assertSame('WordPress database error: Could not perform query because it contains invalid data.', $this->wpdb->last_error);
        // insert() checks the value against the column's charset (utf8mb4, from the catalogue).
        $this->assertFalse($this->wpdb->insert('t_items', ['name' => 'y', 'body' => "a\xC3b"]));
        $this->assertStringStartsWith('WordPress database error: Processing the value for the following field failed: body', $this->wpdb->last_error);
        $this->assertSame('0', $this->wpdb->get_var('SELECT COUNT(*) FROM t_items'));
        $this->assertSame('', trim((string) file_get_contents($this->log)));
    }

    public function testAFailedConnectionBailsWithoutShowingThePassword(): void
    {
        putenv('DATABASE_URL=postgresql://someone:hunter2secret@127.0.0.1:1/nowhere');
        $wpdb = new Wpdb('', '', 'wp', '');
        $this->assertFalse($wpdb->ready);
        $this->assertInstanceOf(\WP_Error::class, $wpdb->error);
        $this->assertSame('db_connect_fail', $wpdb->error->get_error_code());
        $this->assertFalse($wpdb->query('SELECT 1'));
        $log = (string) file_get_contents($this->log);
        $this->assertStringNotContainsString('hunter2secret', $log . $wpdb->error->get_error_message());

        putenv('DATABASE_URL');
        $saved = [$_SERVER['DATABASE_URL'] ?? null, $_ENV['DATABASE_URL'] ?? null];
        unset($_SERVER['DATABASE_URL'], $_ENV['DATABASE_URL']);
        try {
            $this->assertFalse((new Wpdb('', '', 'wp', ''))->ready, 'no DATABASE_URL: no connection');
        } finally {
            [$_SERVER['DATABASE_URL'], $_ENV['DATABASE_URL']] = $saved;
        }
    }

    public function testAnUnknownConstructFailsLoudlyAndChangesNothing(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', 'kept')");
        $this->wpdb->suppress_errors();
        $statement = "LOAD DATA INFILE '/etc/passwd' INTO TABLE t_items";
        $this->assertFalse($this->wpdb->query($statement));
        $this->assertNotSame('', $this->wpdb->last_error);
        $log = (string) file_get_contents($this->log);
        $this->assertStringContainsString("WordPress database error: cannot run $statement: ", $log);
        $this->assertSame(1, substr_count($log, 'WordPress database error'), 'logged once');
        $this->assertSame([['a', 'kept']], pg_fetch_all(pg_query($this->database->inspect(), 'SELECT name, body FROM t_items'), PGSQL_NUM));
    }

    public function testCharsetAndLengthsComeFromTheCatalogue(): void
    {
        $this->assertSame('utf8mb4', $this->wpdb->get_col_charset('t_items', 'name'));
        $this->assertFalse($this->wpdb->get_col_charset('t_items', 'id'));
        $this->assertSame(['type' => 'char', 'length' => 20], $this->wpdb->get_col_length('t_items', 'name'));
        $this->assertSame(['type' => 'byte', 'length' => 4294967295], $this->wpdb->get_col_length('t_items', 'body'));
        // Too long for varchar(20): core's insert() refuses it before sending, as with MySQL.
        $this->wpdb->suppress_errors();
        $this->assertFalse($this->wpdb->insert('t_items', ['name' => str_repeat('é', 21), 'body' => '']));
        $this->assertSame(str_repeat('é', 20), $this->wpdb->strip_invalid_text_for_column('t_items', 'name', str_repeat('é', 25)));
        // Invalid UTF-8 is stripped from a write, as core does for utf8mb4 columns.
        $this->assertSame('ab', $this->wpdb->strip_invalid_text_for_column('t_items', 'body', "a\xC3b"));
        $this->assertTrue(version_compare($this->wpdb->db_version(), '5.5.5', '>='), $this->wpdb->db_version());
        $this->assertTrue($this->wpdb->has_cap('utf8mb4'));
        $this->assertSame('DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci', $this->wpdb->get_charset_collate());
    }

    public function testFoundRows(): void
    {
        $this->wpdb->query("INSERT INTO t_items (name, body) VALUES ('a', ''), ('b', ''), ('c', '')");
        $this->assertCount(1, $this->wpdb->get_results('SELECT SQL_CALC_FOUND_ROWS id FROM t_items ORDER BY id LIMIT 0, 1'));
        $this->assertSame('3', $this->wpdb->get_var('SELECT FOUND_ROWS()'));
    }

    private function executorOf(Wpdb $wpdb): \Berth\Pg\Executor
    {
        return $wpdb->dbh->executor;
    }
}

/** An object whose serialized form holds NUL bytes (PHP writes "\0*\0" before protected names). */
final class SerializedWithNul
{
    protected string $secret = "value with a \0 inside";
    private int $count = 3;
}
