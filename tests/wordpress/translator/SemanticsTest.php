<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\Catalog;
use PHPUnit\Framework\TestCase;

/**
 * MySQL's meaning, checked by real results on PostgreSQL: affected rows, insert ids,
 * case-insensitive text, NUL bytes, zero dates, conversions, functions, grouping, FOUND_ROWS,
 * multi-table DELETE, the SHOW/DESCRIBE answers and index use.
 */
final class SemanticsTest extends TestCase
{
    private static ProjectSchema $db;

    public static function setUpBeforeClass(): void
    {
        self::$db = ProjectSchema::create();
        $schema = [
            "CREATE TABLE wp_options (
                option_id bigint(20) unsigned NOT NULL auto_increment,
                option_name varchar(191) NOT NULL default '',
                option_value longtext NOT NULL,
                autoload varchar(20) NOT NULL default 'yes',
                PRIMARY KEY  (option_id),
                UNIQUE KEY option_name (option_name),
                KEY autoload (autoload)
            ) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
            "CREATE TABLE wp_postmeta (
                meta_id bigint(20) unsigned NOT NULL auto_increment,
                post_id bigint(20) unsigned NOT NULL default '0',
                meta_key varchar(255) default NULL,
                meta_value longtext,
                PRIMARY KEY  (meta_id),
                KEY post_id (post_id),
                KEY meta_key (meta_key(191))
            ) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
            "CREATE TABLE wp_posts (
                ID bigint(20) unsigned NOT NULL auto_increment,
                post_author bigint(20) unsigned NOT NULL default '0',
                post_date datetime NOT NULL default '0000-00-00 00:00:00',
                post_date_gmt datetime NOT NULL default '0000-00-00 00:00:00',
                post_title text NOT NULL,
                post_status varchar(20) NOT NULL default 'publish',
                post_type varchar(20) NOT NULL default 'post',
                menu_order int(11) NOT NULL default '0',
                PRIMARY KEY  (ID),
                KEY type_status_date (post_type,post_status,post_date,ID)
            ) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
        ];
        foreach ($schema as $sql) {
            self::$db->query($sql);
        }
    }

    private function q(string $mysql): array
    {
        return self::$db->query($mysql);
    }

    private function value(string $mysql): ?string
    {
        $rows = $this->q($mysql)['rows'];
        return $rows === [] ? null : array_values($rows[0])[0];
    }

    public function testOnDuplicateKeyUpdateCountsInsertedUpdatedAndUnchangedAsMysql(): void
    {
        $upsert = "INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('up_test', '%s', 'yes') "
            . 'ON DUPLICATE KEY UPDATE `option_name` = VALUES(`option_name`), `option_value` = VALUES(`option_value`), `autoload` = VALUES(`autoload`)';
        $this->assertSame(1, $this->q(sprintf($upsert, 'one'))['affected'], 'a new row');
        $this->assertSame(0, $this->q(sprintf($upsert, 'one'))['affected'], 'the same values');
        $this->assertSame(2, $this->q(sprintf($upsert, 'two'))['affected'], 'a changed row');
        $this->assertSame(2, $this->q(sprintf($upsert, 'TWO'))['affected'], 'a change of case is a change');
        $this->assertSame('TWO', $this->value("SELECT option_value FROM wp_options WHERE option_name = 'up_test'"));
        $this->assertSame('1', $this->value("SELECT COUNT(*) FROM wp_options WHERE option_name = 'up_test'"));
    }

    public function testInsertIgnoreTakesALockOnlyOnce(): void
    {
        $lock = "INSERT IGNORE INTO `wp_options` ( `option_name`, `option_value`, `autoload` ) VALUES ('core_updater.lock', '1700000000', 'no') /* LOCK */";
        $this->assertSame(1, $this->q($lock)['affected']);
        $this->assertSame(0, $this->q($lock)['affected']);
    }

    public function testUpdateMatchesOnlyRowsItChanges(): void
    {
        $this->q("INSERT INTO wp_options (option_name, option_value) VALUES ('upd_test', 'a')");
        $this->assertSame(0, $this->q("UPDATE wp_options SET option_value = 'a' WHERE option_name = 'upd_test'")['affected']);
        $this->assertSame(1, $this->q("UPDATE wp_options SET option_value = 'b' WHERE option_name = 'upd_test'")['affected']);
        $this->assertSame(1, $this->q("UPDATE wp_options SET option_value = 'B' WHERE option_name = 'upd_test'")['affected']);
        $this->assertSame('B', $this->value("SELECT option_value FROM wp_options WHERE option_name = 'upd_test'"));
    }

    public function testReplaceCountsOneForNewAndTwoForReplaced(): void
    {
        $this->assertSame(1, $this->q("REPLACE INTO wp_options (option_name, option_value) VALUES ('rep_test', 'x')")['affected']);
        $this->assertSame(2, $this->q("REPLACE INTO wp_options (option_name, option_value) VALUES ('rep_test', 'y')")['affected']);
        $this->assertSame('y', $this->value("SELECT option_value FROM wp_options WHERE option_name = 'rep_test'"));
    }

    public function testInsertIdIsTheFirstRowOfAMultiRowInsertAndFollowsExplicitIds(): void
    {
        $r = $this->q("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (1, 'a', '1'), (1, 'b', '2'), (1, 'c', '3')");
        $this->assertSame(3, $r['affected']);
        $first = (int) $r['insertId'];
        $this->assertSame((string) $first, $this->value("SELECT MIN(meta_id) FROM wp_postmeta WHERE post_id = 1 AND meta_key IN ('a','b','c')"));
        $this->q("INSERT INTO wp_postmeta (meta_id, post_id, meta_key) VALUES (1000, 1, 'explicit')");
        $next = $this->q("INSERT INTO wp_postmeta (post_id, meta_key) VALUES (1, 'after')");
        $this->assertSame('1001', $next['insertId'], 'MySQL continues after an explicit id');
        $zero = $this->q("INSERT INTO wp_postmeta (meta_id, post_id, meta_key) VALUES (0, 1, 'zero')");
        $this->assertSame('1002', $zero['insertId'], '0 asks for a new id');
    }

    public function testTextEqualityAndLikeAreCaseInsensitive(): void
    {
        $this->q("INSERT INTO wp_options (option_name, option_value) VALUES ('Case_Test', 'v')");
        $this->assertSame('v', $this->value("SELECT option_value FROM wp_options WHERE option_name = 'CASE_TEST'"));
        $this->assertSame('v', $this->value("SELECT option_value FROM wp_options WHERE option_name IN ('x', 'case_test')"));
        $this->assertSame('Case_Test', $this->value("SELECT option_name FROM wp_options WHERE option_name LIKE 'case\\_t%'"));
        $this->assertSame('Case_Test', $this->value("SELECT option_name FROM wp_options WHERE option_name LIKE 'CASE_TEST'"));
        $this->assertNull($this->value("SELECT option_name FROM wp_options WHERE option_name LIKE 'case\\_x%'"));
        $this->assertSame('Case_Test', $this->value("SELECT option_name FROM wp_options WHERE option_name = 'cäse_test'"), 'accents too (utf8mb4_unicode_ci)');
        try {
            $this->q("INSERT INTO wp_options (option_name, option_value) VALUES ('CASE_TEST', 'dup')");
            $this->fail('the unique key is case-insensitive');
        } catch (\RuntimeException $e) {
            $this->assertStringContainsString('duplicate key', $e->getMessage());
        }
    }

    public function testNulBytesOfASerializedObjectRoundTrip(): void
    {
        $object = new NulHolder();
        $serialized = serialize($object);
        $this->assertStringContainsString("\0", $serialized);
        // What mysqli_real_escape_string sends.
        $escaped = strtr($serialized, ["\\" => "\\\\", "\0" => "\\0", "'" => "\\'", '"' => '\\"', "\n" => "\\n"]);
        $this->q("INSERT INTO wp_options (option_name, option_value) VALUES ('nul_test', '$escaped')");
        $back = $this->value("SELECT option_value FROM wp_options WHERE option_name = 'nul_test'");
        $this->assertSame($serialized, $back);
        $this->assertEquals($object, unserialize($back));
        $this->assertSame('1', $this->value("SELECT COUNT(*) FROM wp_options WHERE option_value = '$escaped'"));
    }

    // Found by the mysql_parse fuzz target: a raw NUL byte in the text an unaliased item is
    // named after went into the PostgreSQL statement, which PostgreSQL cuts at the NUL.
    public function testRawNulByteInAnUnaliasedItemNamesItsColumn(): void
    {
        $rows = $this->q("SELECT RIGHT('b\0', 1)")['rows'];
        $this->assertCount(1, $rows);
        $this->assertSame(["\0"], array_values($rows[0]));
        foreach ($this->q("SELECT RIGHT('b\0', 1)")['translation']->sql as $sql) {
            $this->assertStringNotContainsString("\0", $sql);
        }
    }

    public function testZeroDatesAreStoredAndFound(): void
    {
        $id = $this->q("INSERT INTO wp_posts (post_title, post_date, post_date_gmt) VALUES ('draft', '2024-05-01 10:00:00', '0000-00-00 00:00:00')")['insertId'];
        $this->assertSame('0000-00-00 00:00:00', $this->value("SELECT post_date_gmt FROM wp_posts WHERE ID = $id"));
        $this->assertSame('0000-00-00', $this->value("SELECT DATE(post_date_gmt) FROM wp_posts WHERE ID = $id"));
        $this->assertSame($id, $this->value("SELECT ID FROM wp_posts WHERE post_date_gmt = '0000-00-00 00:00:00' AND ID = $id"));
        $this->assertSame('0', $this->value("SELECT YEAR(post_date_gmt) FROM wp_posts WHERE ID = $id"));
        $other = $this->q("INSERT INTO wp_posts (post_title) VALUES ('defaults')")['insertId'];
        $this->assertSame('0000-00-00 00:00:00', $this->value("SELECT post_date FROM wp_posts WHERE ID = $other"));
        $this->assertSame('-infinity', pg_fetch_result(self::$db->exec("SELECT post_date FROM wp_posts WHERE \"ID\" = $other"), 0, 0), 'stored as -infinity');
    }

    public function testCastFieldIfRandAndDateFunctions(): void
    {
        $row = $this->q("SELECT CAST('12abc' AS SIGNED) AS a, CAST('-3' AS SIGNED) AS b, CAST('3.14159' AS DECIMAL(5,2)) AS c,
            CAST(5 AS CHAR) AS d, FIELD('b', 'a', 'b', 'c') AS e, FIELD('z', 'a') AS f, IF(1 > 2, 'yes', 'no') AS g,
            IFNULL(NULL, 'x') AS h, CONCAT('a', NULL) AS i, CONCAT('a', 1, 'b') AS j")['rows'][0];
        $this->assertSame(['a' => '12', 'b' => '-3', 'c' => '3.14', 'd' => '5', 'e' => '2', 'f' => '0', 'g' => 'no',
            'h' => 'x', 'i' => null, 'j' => 'a1b'], $row);
        $dates = $this->q("SELECT DATE_FORMAT('2024-03-05 14:07:09', '%Y-%m-%d %H:%i:%s') AS a,
            DATE_FORMAT('2024-03-05 14:07:09', '%M %D, %W %y %c/%e %h%p') AS b,
            UNIX_TIMESTAMP('2024-01-01 00:00:00') AS c, FROM_UNIXTIME(1704067200) AS d, TO_DAYS('2007-10-07') AS e,
            DAYOFMONTH('2024-03-05') AS f, WEEKDAY('2024-01-01') AS g, DAYOFWEEK('2024-01-01') AS h,
            WEEK('2024-01-01', 0) AS i, WEEK('2024-01-01', 1) AS j, WEEK('2024-12-31', 0) AS k, QUARTER('2024-05-01') AS l,
            DATE_ADD('2024-01-31 10:00:00', INTERVAL 1 MONTH) AS m, '2024-03-01 00:00:00' - INTERVAL 1 DAY AS n,
            DATE_SUB('2024-03-01 12:00:00', INTERVAL 90 MINUTE) AS o, DATEDIFF('2024-03-01', '2024-02-01') AS p,
            MONTH('2024-11-26 09:00:00') AS q, YEAR('2024-11-26') AS r")['rows'][0];
        $this->assertSame([
            'a' => '2024-03-05 14:07:09', 'b' => 'March 5th, Tuesday 24 3/5 02PM', 'c' => '1704067200',
            'd' => '2024-01-01 00:00:00', 'e' => '733321', 'f' => '5', 'g' => '0', 'h' => '2', 'i' => '0', 'j' => '1',
            'k' => '52', 'l' => '2', 'm' => '2024-02-29 10:00:00', 'n' => '2024-02-29 00:00:00', 'o' => '2024-03-01 10:30:00',
            'p' => '29', 'q' => '11', 'r' => '2024',
        ], $dates);
        $rand = (float) $this->value('SELECT RAND()');
        $this->assertGreaterThanOrEqual(0, $rand);
        $this->assertLessThan(1, $rand);
        $this->assertSame('2.5000', $this->value('SELECT 5 / 2'));
        $this->assertNull($this->value('SELECT 1 / 0'));
        $this->assertSame('2', $this->value('SELECT 5 DIV 2'));
    }

    public function testRegexp(): void
    {
        $this->q("INSERT INTO wp_options (option_name, option_value) VALUES ('rss_0123456789abcdef0123456789abcdef', 'x'), ('rss_0123456789abcdef0123456789abcdef_ts', 'y'), ('rss_short', 'z')");
        $this->assertSame('2', $this->value("SELECT COUNT(*) FROM wp_options WHERE option_name REGEXP '^rss_[0-9a-f]{32}(_ts)?$'"));
        $this->assertSame('1', $this->value("SELECT COUNT(*) FROM wp_options WHERE option_name LIKE 'rss%' AND option_name NOT REGEXP '^rss_[0-9a-f]{32}(_ts)?$'"));
        $this->assertSame('1', $this->value("SELECT 'the word here' REGEXP '[[:<:]]word[[:>:]]'"));
        $this->assertSame('0', $this->value("SELECT 'the words here' REGEXP '[[:<:]]word[[:>:]]'"));
        $this->assertSame('0', $this->value("SELECT 'ABC' REGEXP BINARY 'abc'"), 'BINARY makes it case-sensitive');
        $this->assertSame('1', $this->value("SELECT CAST('ABC' AS BINARY) REGEXP 'AB'"));
        $this->assertSame('0', $this->value("SELECT 'ABC' LIKE BINARY 'abc'"));
        $this->assertSame(2, $this->q("DELETE FROM wp_options WHERE option_name REGEXP '^RSS_[0-9a-f]{32}(_ts)?$'")['affected'], 'case-insensitive as MySQL');
    }

    public function testTextComparedWithNumbersAsMysqlDoes(): void
    {
        $this->q("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (7, 'num', '5'), (7, 'num', '5.0'), (7, 'num', '12'), (7, 'num', 'abc'), (7, 'num', ' 5 apples')");
        $this->assertSame('3', $this->value("SELECT COUNT(*) FROM wp_postmeta WHERE post_id = 7 AND meta_value = 5"));
        $this->assertSame('4', $this->value("SELECT COUNT(*) FROM wp_postmeta WHERE post_id = 7 AND meta_value < 10"), "'abc' is 0");
        $this->assertSame('1', $this->value("SELECT COUNT(*) FROM wp_postmeta WHERE post_id = 7 AND CAST(meta_value AS SIGNED) > 5"));
        $this->assertSame('12', $this->value("SELECT meta_value FROM wp_postmeta WHERE post_id = 7 ORDER BY meta_value+0 DESC LIMIT 1"));
        $this->assertSame('5', $this->value("SELECT COUNT(*) FROM wp_postmeta WHERE post_id = '7'"));
        $this->assertSame('5', $this->value("SELECT COUNT(*) FROM wp_postmeta WHERE post_id = '7abc'"));
        $this->assertSame('1', $this->value("SELECT '10' > 9"));
    }

    public function testGroupByWithUngroupedColumnsHavingAndOrderByAliases(): void
    {
        $this->q("INSERT INTO wp_posts (post_title, post_status, post_type, post_date) VALUES ('g1', 'publish', 'grp', '2024-01-01 00:00:00'), ('g2', 'publish', 'grp', '2024-02-01 00:00:00'), ('g3', 'draft', 'grp', '2024-03-01 00:00:00')");
        $rows = $this->q("SELECT post_status, post_title, COUNT(*) AS n FROM wp_posts WHERE post_type = 'grp' GROUP BY post_status HAVING n > 1 ORDER BY n DESC")['rows'];
        $this->assertCount(1, $rows);
        $this->assertSame('publish', $rows[0]['post_status']);
        $this->assertSame('2', $rows[0]['n']);
        $this->assertContains($rows[0]['post_title'], ['g1', 'g2']);
        $statuses = $this->q("SELECT post_status, COUNT( * ) AS num_posts FROM wp_posts WHERE post_type = 'grp' GROUP BY post_status")['rows'];
        $this->assertSame(['draft', 'publish'], array_column($statuses, 'post_status'), 'MariaDB sorts by the groups');
        $months = $this->q("SELECT DISTINCT YEAR( post_date ) AS year, MONTH( post_date ) AS month FROM wp_posts WHERE post_type = 'grp' ORDER BY post_date DESC")['rows'];
        $this->assertSame([['year' => '2024', 'month' => '3'], ['year' => '2024', 'month' => '2'], ['year' => '2024', 'month' => '1']], $months);
        $this->assertSame('3', $this->value("SELECT COUNT(*) FROM wp_posts WHERE post_type = 'grp' ORDER BY post_date DESC"));
        $any = $this->q("SELECT post_status, ANY_VALUE(post_title) AS t FROM wp_posts WHERE post_type = 'grp' GROUP BY post_status")['rows'];
        $this->assertSame(['draft', 'g3'], [$any[0]['post_status'], $any[0]['t']], "MySQL's ANY_VALUE()");
        $unsorted = $this->q("SELECT post_status, COUNT(*) FROM wp_posts WHERE post_type = 'grp' GROUP BY post_status ORDER BY NULL");
        $this->assertCount(2, $unsorted['rows']);
        $this->assertStringNotContainsString('ORDER BY', $unsorted['translation']->sql[0], 'ORDER BY NULL: no sorting');
        // wp_get_archives('type=weekly'): DISTINCT and GROUP BY, ordered by a column it does not select.
        $weeks = $this->q("SELECT DISTINCT WEEK(post_date, 1) AS `week`, YEAR( `post_date` ) AS `yr`, DATE_FORMAT( `post_date`, '%Y-%m-%d' ) AS `yyyymmdd`, count( `ID` ) AS `posts` FROM `wp_posts` WHERE post_type = 'grp' GROUP BY WEEK( `post_date`, 1 ), YEAR( `post_date` ) ORDER BY `post_date` DESC")['rows'];
        $this->assertSame([
            ['week' => '9', 'yr' => '2024', 'yyyymmdd' => '2024-03-01', 'posts' => '1'],
            ['week' => '5', 'yr' => '2024', 'yyyymmdd' => '2024-02-01', 'posts' => '1'],
            ['week' => '1', 'yr' => '2024', 'yyyymmdd' => '2024-01-01', 'posts' => '1'],
        ], $weeks);
    }

    public function testSqlCalcFoundRowsAndFoundRows(): void
    {
        $values = [];
        for ($i = 1; $i <= 25; $i++) {
            $values[] = "('found $i', 'found', '2024-01-01 00:00:" . sprintf('%02d', $i) . "')";
        }
        $this->q('INSERT INTO wp_posts (post_title, post_type, post_date) VALUES ' . implode(', ', $values));
        $page = $this->q("SELECT SQL_CALC_FOUND_ROWS wp_posts.ID FROM wp_posts WHERE 1=1 AND wp_posts.post_type = 'found' ORDER BY wp_posts.post_date DESC LIMIT 10, 10");
        $this->assertCount(10, $page['rows']);
        $this->assertNotNull($page['translation']->foundRowsSql);
        $this->assertSame(['FOUND_ROWS()' => '25'], $this->q('SELECT FOUND_ROWS()')['rows'][0]);
    }

    public function testMultiTableDeleteRemovesBothSidesOfTheJoin(): void
    {
        $this->q("INSERT INTO wp_options (option_name, option_value) VALUES ('_transient_a', 'x'), ('_transient_timeout_a', '100'), ('_transient_b', 'y'), ('_transient_timeout_b', '99999999999')");
        $r = $this->q("DELETE a, b FROM wp_options a, wp_options b WHERE a.option_name LIKE '\\\\_transient\\\\_%' AND a.option_name NOT LIKE '\\\\_transient\\\\_timeout\\\\_%' AND b.option_name = CONCAT( '_transient_timeout_', SUBSTRING( a.option_name, 12 ) ) AND b.option_value < 1000");
        $this->assertSame(2, $r['affected']);
        $left = array_column($this->q("SELECT option_name FROM wp_options WHERE option_name LIKE '\\\\_transient%' ORDER BY option_name")['rows'], 'option_name');
        $this->assertSame(['_transient_b', '_transient_timeout_b'], $left);
    }

    public function testDescribeAndShowAnswerAsMysqli(): void
    {
        $describe = $this->q('DESCRIBE wp_options;')['rows'];
        $this->assertSame([
            ['Field' => 'option_id', 'Type' => 'bigint(20) unsigned', 'Null' => 'NO', 'Key' => 'PRI', 'Default' => null, 'Extra' => 'auto_increment'],
            ['Field' => 'option_name', 'Type' => 'varchar(191)', 'Null' => 'NO', 'Key' => 'UNI', 'Default' => '', 'Extra' => ''],
            ['Field' => 'option_value', 'Type' => 'longtext', 'Null' => 'NO', 'Key' => '', 'Default' => null, 'Extra' => ''],
            ['Field' => 'autoload', 'Type' => 'varchar(20)', 'Null' => 'NO', 'Key' => 'MUL', 'Default' => 'yes', 'Extra' => ''],
        ], $describe);
        $full = $this->q('SHOW FULL COLUMNS FROM `wp_options`')['rows'];
        $this->assertSame('utf8mb4_unicode_520_ci', $full[1]['Collation']);
        $this->assertNull($full[0]['Collation']);
        $index = $this->q('SHOW INDEX FROM wp_postmeta')['rows'];
        $this->assertSame(['PRIMARY', 'post_id', 'meta_key'], array_column($index, 'Key_name'));
        $this->assertSame('191', $index[2]['Sub_part']);
        $this->assertSame('1', $index[2]['Non_unique']);
        $where = $this->q("SHOW INDEX FROM wp_postmeta WHERE Column_name = 'meta_key'")['rows'];
        $this->assertCount(1, $where);
        $tables = $this->q("SHOW TABLES LIKE 'wp\\\\_opt%'")['rows'];
        $this->assertSame([['Tables_in_wp (wp\\_opt%)' => 'wp_options']], $tables);
        $this->assertSame([], $this->q("SHOW TABLES LIKE 'wp\\\\_nothing'")['rows']);
        $this->assertSame([['Variable_name' => 'max_allowed_packet', 'Value' => '16777216']], $this->q("SHOW VARIABLES LIKE 'max_allowed_packet'")['rows']);
        $this->q("SET SESSION sql_mode='NO_ENGINE_SUBSTITUTION'");
        $this->assertSame([['@@SESSION.sql_mode' => 'NO_ENGINE_SUBSTITUTION']], $this->q('SELECT @@SESSION.sql_mode')['rows']);
        $this->assertSame('wp', $this->value('SELECT DATABASE()'));
        $this->assertStringStartsWith('10.11', $this->value('SELECT VERSION()'));
    }

    public function testOptionNameLookupUsesTheUniqueIndex(): void
    {
        $values = [];
        for ($i = 0; $i < 3000; $i++) {
            $values[] = "('idx_option_$i', 'v$i', 'no')";
        }
        $this->q('INSERT INTO wp_options (option_name, option_value, autoload) VALUES ' . implode(', ', $values));
        self::$db->exec('ANALYZE wp_options');
        $t = self::$db->translator->translate("SELECT option_value FROM wp_options WHERE option_name = 'IDX_OPTION_1234' LIMIT 1");
        $plan = implode("\n", array_column(pg_fetch_all(self::$db->exec('EXPLAIN ' . $t->sql[0])), 'QUERY PLAN'));
        $this->assertMatchesRegularExpression('/Index Scan using "?wp_options__option_name"?/', $plan);
        $this->assertSame('v1234', $this->value("SELECT option_value FROM wp_options WHERE option_name = 'IDX_OPTION_1234' LIMIT 1"));
    }

    public function testAlterTableChangesAreRunAndRecorded(): void
    {
        $this->q('CREATE TABLE wp_alter2 ( id bigint(20) unsigned NOT NULL auto_increment, name varchar(50) NOT NULL, PRIMARY KEY (id), KEY name (name) )');
        $this->q("INSERT INTO wp_alter2 (name) VALUES ('one')");
        $this->q('ALTER TABLE wp_alter2 ADD COLUMN note longtext NOT NULL AFTER id');
        $this->q("ALTER TABLE wp_alter2 CHANGE COLUMN `name` `name` varchar(191) NOT NULL default ''");
        $this->q('ALTER TABLE wp_alter2 DROP INDEX name, ADD INDEX name(name(100))');
        $this->q('ALTER TABLE wp_alter2 ADD INDEX note(note(32))');
        $this->q("ALTER TABLE wp_alter2 ALTER COLUMN `note` SET DEFAULT 'n/a'");
        $describe = $this->q('DESCRIBE wp_alter2')['rows'];
        $this->assertSame(['id', 'note', 'name'], array_column($describe, 'Field'));
        $this->assertSame('varchar(191)', $describe[2]['Type']);
        $this->assertSame('n/a', $describe[1]['Default']);
        $this->assertSame(['PRIMARY', 'name', 'note'], array_column($this->q('SHOW INDEX FROM wp_alter2')['rows'], 'Key_name'));
        $this->assertSame(1, $this->q("INSERT INTO wp_alter2 (name) VALUES ('two')")['affected']);
        $this->assertSame('n/a', $this->value("SELECT note FROM wp_alter2 WHERE name = 'two'"));
        $this->assertSame('', $this->value("SELECT note FROM wp_alter2 WHERE name = 'one'"), "MySQL's implicit default for the existing row");
        // What is in the database's catalogue equals what the translator holds.
        $stored = Catalog::fromRows(pg_fetch_all(self::$db->exec(Catalog::loadSql())) ?: []);
        $this->assertEquals($stored->table('wp_alter2'), self::$db->translator->catalog()->table('wp_alter2'));
        $this->q('DROP TABLE wp_alter2');
        $this->assertSame([], $this->q("SHOW TABLES LIKE 'wp_alter2'")['rows']);
    }

    public function testSetupRunsAgainAsTheProjectRole(): void
    {
        foreach (\Berth\Pg\Translator::setupSql() as $sql) {
            self::$db->exec($sql);
        }
        $this->assertSame('5', $this->value("SELECT CAST(' 5 apples' AS SIGNED)"));
    }

    public function testOnUpdateCurrentTimestampAndTruncate(): void
    {
        $this->q('CREATE TABLE wp_stamped ( id int(11) NOT NULL AUTO_INCREMENT, v varchar(10) NOT NULL,
            changed timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (id) )');
        $columns = $this->q('DESCRIBE wp_stamped')['rows'];
        $this->assertSame(['Field' => 'changed', 'Type' => 'timestamp', 'Null' => 'NO', 'Key' => '', 'Default' => 'current_timestamp()',
            'Extra' => 'on update current_timestamp()'], $columns[2]);
        $this->assertSame('int(11)', $columns[0]['Type']);
        $this->q("INSERT INTO wp_stamped (v) VALUES ('a')");
        $this->q("UPDATE wp_stamped SET changed = '2001-01-01 00:00:00' WHERE id = 1");
        $this->assertSame(0, $this->q("UPDATE wp_stamped SET v = 'a' WHERE id = 1")['affected'], 'nothing changes, nothing is stamped');
        $this->assertSame('2001-01-01 00:00:00', $this->value('SELECT changed FROM wp_stamped WHERE id = 1'));
        $this->assertSame(1, $this->q("UPDATE wp_stamped SET v = 'b' WHERE id = 1")['affected']);
        $this->assertSame('1', $this->value('SELECT changed > NOW() - INTERVAL 1 HOUR FROM wp_stamped WHERE id = 1'));
        $this->q('TRUNCATE TABLE wp_stamped');
        $this->assertSame('1', $this->q("INSERT INTO wp_stamped (v) VALUES ('c')")['insertId'], 'TRUNCATE restarts the counter');
        $this->q('DROP TABLE IF EXISTS wp_stamped, wp_never_made');
        $this->assertFalse(self::$db->translator->catalog()->has('wp_stamped'));
    }

    public function testTransactionsAndSessionStatements(): void
    {
        $this->assertSame(['BEGIN'], self::$db->translator->translate('START TRANSACTION')->sql);
        $this->assertSame('savepoint', self::$db->translator->translate('SAVEPOINT sp1')->kind);
        $this->assertSame(['ROLLBACK TO SAVEPOINT "sp1"'], self::$db->translator->translate('ROLLBACK TO SAVEPOINT sp1')->sql);
        $this->assertSame(['COMMIT'], self::$db->translator->translate('COMMIT')->sql);
        $this->assertSame('set', self::$db->translator->translate("SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_520_ci'")->kind);
        $this->assertSame('utf8mb4_unicode_520_ci', $this->value('SELECT @@collation_connection'));
        $this->q("SET @marker = 'm1'");
        $this->assertSame('m1', $this->value('SELECT @marker'));
        $this->assertSame('noop', self::$db->translator->translate('LOCK TABLES wp_options WRITE')->kind);
    }
}

/** An object whose serialized form carries NUL bytes (private and protected properties). */
final class NulHolder
{
    private string $secret = 'private';
    protected array $list = [1, 'two'];
    public string $open = "quote ' and \\ backslash";
}
