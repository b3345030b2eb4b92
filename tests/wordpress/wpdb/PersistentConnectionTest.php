<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\SupportSchema;
use Berth\Pg\Translator;
use Berth\Pg\Wpdb;
use PHPUnit\Framework\TestCase;

/**
 * Kept connections (pg_pconnect): each Wpdb made here after the previous one was closed is
 * the next request of the same php-cgi worker. PHP's own end-of-request rollback does not run
 * between them (one PHPUnit process is one PHP request), so what the drop-in does itself
 * when it takes a kept link is what is tested.
 */
final class PersistentConnectionTest extends TestCase
{
    use ProjectDatabaseCase;

    protected function setUp(): void
    {
        $this->openProject();
        $wpdb = $this->request();
        $this->assertNotFalse($wpdb->query("CREATE TABLE t_items (
            id bigint(20) unsigned NOT NULL auto_increment,
            name varchar(20) NOT NULL default '',
            PRIMARY KEY  (id)
        )"), $wpdb->last_error);
        $wpdb->close();
    }

    protected function tearDown(): void
    {
        $this->closeProject();
    }

    /** The next request of the worker: a new Wpdb on the same DATABASE_URL. */
    private function request(string $url = ''): Wpdb
    {
        return $this->connectWpdb($url);
    }

    private static function pid(Wpdb $wpdb): int
    {
        return pg_get_pid($wpdb->dbh->pg);
    }

    private function inspectValue(string $sql): ?string
    {
        $value = pg_fetch_result(pg_query($this->database->inspect(), $sql), 0, 0);
        return $value === false ? null : $value;
    }

    private function markerVersion(): ?string
    {
        $comment = $this->inspectValue("SELECT obj_description('berth_mysql_support'::regclass, 'pg_class')");
        return preg_match('/version (\d+)/', (string) $comment, $m) ? $m[1] : null;
    }

    public function testTheNextRequestReusesTheBackend(): void
    {
        $first = $this->request();
        $pid = self::pid($first);
        $this->assertSame(1, $first->query("INSERT INTO t_items (name) VALUES ('a')"));
        $first->close();

        $second = $this->request();
        $this->assertSame($pid, self::pid($second), 'the same backend');
        $this->assertSame('a', $second->get_var('SELECT name FROM t_items'));
        $this->assertSame(1, $second->query("INSERT INTO t_items (name) VALUES ('b')"));
        $this->assertSame(2, $second->insert_id);
        $this->assertSame('1', $this->inspectValue("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'wpdb_test'"));
        $second->close();
        $this->assertSame('', trim((string) file_get_contents($this->log)));
    }

    public function testATransactionLeftOpenIsRolledBackAndItsSettingsWithIt(): void
    {
        $first = $this->request();
        // A session setting made before the transaction: pg_pconnect's RESET ALL runs inside
        // the open transaction, so the rollback would bring it back.
        pg_query($first->dbh->pg, 'SET statement_timeout = 1234');
        $first->query('START TRANSACTION');
        $this->assertSame(1, $first->query("INSERT INTO t_items (name) VALUES ('uncommitted')"));
        $pid = self::pid($first);
        $first->close();

        $second = $this->request();
        $this->assertSame($pid, self::pid($second));
        $this->assertSame(PGSQL_TRANSACTION_IDLE, pg_transaction_status($second->dbh->pg));
        $this->assertSame('0', $second->get_var("SELECT COUNT(*) FROM t_items WHERE name = 'uncommitted'"));
        $this->assertSame('0', pg_fetch_result(pg_query($second->dbh->pg, 'SHOW statement_timeout'), 0, 0));
        $this->assertSame('0', $this->inspectValue('SELECT count(*) FROM t_items'));
        $second->close();
    }

    public function testASecondWpdbOfTheSameRequestLeavesTheFirstsTransactionAlone(): void
    {
        $first = $this->request();
        $first->query('START TRANSACTION');
        $first->query("INSERT INTO t_items (name) VALUES ('mine')");
        pg_query($first->dbh->pg, 'SELECT pg_advisory_lock(4243)');
        // A plugin's own wpdb, same DATABASE_URL, same request: the same session.
        $plugin = $this->request();
        $this->assertSame(self::pid($first), self::pid($plugin));
        $plugin->close();
        $this->assertSame(PGSQL_TRANSACTION_INTRANS, pg_transaction_status($first->dbh->pg));
        $this->assertNotFalse($first->query('COMMIT'));
        $this->assertSame('1', $this->inspectValue("SELECT count(*) FROM t_items WHERE name = 'mine'"));
        $this->assertSame('f', $this->inspectValue('SELECT pg_try_advisory_lock(4243)'), 'still held by the first');
        $first->close();
    }

    public function testAnAbortedTransactionIsRecovered(): void
    {
        $first = $this->request();
        $first->query('START TRANSACTION');
        $first->query("INSERT INTO t_items (name) VALUES ('before the error')");
        // Past the drop-in's savepoints: the transaction is aborted.
        @pg_query($first->dbh->pg, 'SELECT 1/0');
        $this->assertSame(PGSQL_TRANSACTION_INERROR, pg_transaction_status($first->dbh->pg));
        $first->close();

        $second = $this->request();
        $this->assertSame(1, $second->query("INSERT INTO t_items (name) VALUES ('after')"), $second->last_error);
        $this->assertSame(['after'], $second->get_col('SELECT name FROM t_items'));
        $second->close();
    }

    public function testABackendEndedBetweenRequestsIsReplaced(): void
    {
        $first = $this->request();
        $first->query("INSERT INTO t_items (name) VALUES ('a')");
        $pid = self::pid($first);
        $first->close();
        pg_query($this->database->inspect(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wpdb_test'");
        usleep(100000);

        $second = $this->request();
        $this->assertNotSame($pid, self::pid($second), 'a new backend');
        $this->assertSame('a', $second->get_var('SELECT name FROM t_items'));
        $this->assertSame('', $second->last_error);
        $second->close();
    }

    public function testSessionLocksAndTemporaryTablesDoNotOutliveTheRequest(): void
    {
        $first = $this->request();
        pg_query($first->dbh->pg, 'SELECT pg_advisory_lock(4242)');
        pg_query($first->dbh->pg, 'CREATE TEMPORARY TABLE t_scratch (x int)');
        $first->close();

        $second = $this->request();
        $this->assertSame('t', $this->inspectValue('SELECT pg_try_advisory_lock(4242)'), 'the lock was let go');
        $this->assertNull(pg_fetch_result(pg_query($second->dbh->pg, "SELECT to_regclass('pg_temp.t_scratch')"), 0, 0));
        $second->close();
    }

    public function testTheSupportCheckRunsOncePerBackendAndAgainForAnotherVersion(): void
    {
        $version = (string) Translator::SUPPORT_VERSION;
        $this->assertSame($version, $this->markerVersion());
        // Were the check run again, it would put the marker back.
        pg_query($this->database->inspect(), "COMMENT ON TABLE berth_mysql_support IS 'Berth: MySQL support for WordPress installed at version 0'");
        $second = $this->request();
        $this->assertSame('0', $this->markerVersion(), 'a backend that checked does not check again');
        // The backend as a drop-in of another SUPPORT_VERSION left it: its own statement, not this one's.
        $other = str_replace('berth_catalog_v' . $version . '_', 'berth_catalog_v0_', SupportSchema::statementName());
        pg_query($second->dbh->pg, 'DEALLOCATE ' . SupportSchema::statementName());
        pg_query($second->dbh->pg, "PREPARE $other AS SELECT 1");
        $pid = self::pid($second);
        $second->close();

        $third = $this->request();
        $this->assertSame($pid, self::pid($third));
        $this->assertSame($version, $this->markerVersion(), 'this version checked and set up again');
        $this->assertSame('0', $third->get_var('SELECT COUNT(*) FROM t_items'));
        $third->close();
    }

    public function testTheCatalogueIsReadAfreshEveryRequest(): void
    {
        $first = $this->request();
        $pid = self::pid($first);
        $first->close();
        // Another worker (another kept link: a conninfo of its own) changes the schema.
        $worker = $this->request($this->database->url . '&connect_timeout=10');
        $this->assertNotSame($pid, self::pid($worker));
        $this->assertNotFalse($worker->query('ALTER TABLE t_items ADD COLUMN note varchar(10) NOT NULL DEFAULT \'x\''), $worker->last_error);
        $worker->close();

        $second = $this->request();
        $this->assertSame($pid, self::pid($second));
        $this->assertSame(1, $second->insert('t_items', ['name' => 'a', 'note' => 'noted']), $second->last_error);
        $this->assertSame('noted', $second->get_var('SELECT note FROM t_items'));
        $second->close();
    }
}
